"""Red team round 19, on the probe's new copies (``Graphs.scratchCopy``/``written``/``releaseFiles``: a
``FileOutputStream`` over a scratch file; ``rebuilt``/``constructed``/``fill``: a project subclass of a JDK map;
``generic``: a JDK-made generic type of project classes), with the harnesses of ``test_observable_state`` and
``test_redteam_copy17`` (real javac and java 17, no sandbox; ``guarded``: the runner's ``Guard`` installed).
``tests/fixtures/redteam/found19/README.md`` has the runs and what held.

Each test asserts the safe outcome, so the ones that show a hole fail while it is open. All three failed at d1a9e9a
and pass since the lead closed them (the README's last section):

- ``test_the_candidate_cannot_read_the_fix_s_answer_out_of_the_reference_s_scratch_files``: the reference's scratch
  streams are still open while the candidate runs; ``/dev/fd/N``'s canonical path names them (no permission asked)
  and the Guard lets the candidate read them: a candidate writing ``BAD!`` comes out with the fix's ``headFIX!``.
- ``test_the_candidate_cannot_write_the_test_s_own_file_through_a_descriptor_s_path``: the same path oracle names the
  test's own file, which the candidate's probe run appends to (the test then fails).
- ``test_a_correct_candidate_using_a_private_scratch_buffer_is_not_told_apart``: ``View.shows`` now compares a private
  in-memory ``ByteArrayOutputStream`` used as scratch space: a correct candidate ``diverges``.
"""

from __future__ import annotations

import pytest

from tests.defects4j_adapter.behaviour.test_observable_state import (  # noqa: F401  (runner: the fixture)
    OPENED,
    probe,
    runner,
)
from tests.defects4j_adapter.behaviour.test_redteam_copy17 import probe_apart

pytestmark = pytest.mark.slow

# the developer's fix: appends its answer to the stream it is given, and leaves it open (an archive stream's
# caller closes it later: Compress-1)
FIX = """public int emit(java.io.OutputStream out) throws java.io.IOException {
    out.write("FIX!".getBytes());
    return 4;
}"""
# a wrong candidate (it writes BAD! where the fix writes FIX!) that reads the fix's answer out of the reference's
# scratch files while they are still open: /proc/self/fd/N's canonical path (File#getCanonicalPath asks no
# permission) names each open file; the scratch files are then read by their paths in the temporary folder, which the
# Guard lets a candidate read (their first name is there). The shortest is what the input held, the longest what the
# fix left: it appends the difference to its own stream
STEALS = """public int emit(java.io.OutputStream out) throws java.io.IOException {
    byte[] shortest = null;
    byte[] longest = null;
    for (int fd = 0; fd < 1024; fd++) {
        String path = new java.io.File("/dev/fd/" + fd).getCanonicalPath();
        if (!path.contains("nl2fix-copy") || path.endsWith("(deleted)")) {
            continue;
        }
        byte[] held = java.nio.file.Files.readAllBytes(java.nio.file.Paths.get(path));
        if (shortest == null || held.length < shortest.length) {
            shortest = held;
        }
        if (longest == null || held.length > longest.length) {
            longest = held;
        }
    }
    if (shortest != null && longest.length > shortest.length) {
        out.write(longest, shortest.length, longest.length - shortest.length);
    } else {
        out.write("BAD!".getBytes());
    }
    return 4;
}"""


def _call_row(rows):
    return next(r for r in rows if r[0] == "BEHAVIOUR" and r[1] == "call")


def test_the_candidate_cannot_read_the_fix_s_answer_out_of_the_reference_s_scratch_files(runner, tmp_path):
    rc, err, rows = probe_apart(
        runner, tmp_path, FIX, STEALS, "new h.Holder().emit(h.Holder.opened()); h.Holder.check(8)", OPENED, guarded=True
    )
    print(rc, err[-1500:])
    for r in rows:
        print("  ", [c[:160] for c in r])
    assert rc == 0, err[-1500:]
    call = _call_row(rows)
    reference, candidate = call[5], call[7]
    assert '"headFIX!"' in reference, call  # the fix's outcome: its scratch file holds what the input did, then FIX!
    # safe: the candidate, which writes BAD!, must not come out with the fix's answer
    assert '"headFIX!"' not in candidate and call[6] != call[8], call


# the same candidate, writing the test's own file instead: its path is the canonical path of one of the JVM's open
# descriptors (not a scratch file): a probe run of the candidate changes what the project's test sees after
WRITES_ORIGINAL = """public int emit(java.io.OutputStream out) throws java.io.IOException {
    for (int fd = 0; fd < 1024; fd++) {
        String path = new java.io.File("/dev/fd/" + fd).getCanonicalPath();
        if (path.contains("/holder")) {
            try (java.io.FileOutputStream o = new java.io.FileOutputStream(path, true)) {
                o.write("EVILEVIL".getBytes());
            }
        }
    }
    out.write("FIX!".getBytes());
    return 4;
}"""


def test_the_candidate_cannot_write_the_test_s_own_file_through_a_descriptor_s_path(runner, tmp_path):
    rc, err, rows = probe_apart(
        runner,
        tmp_path,
        FIX,
        WRITES_ORIGINAL,
        "new h.Holder().emit(h.Holder.opened()); h.Holder.check(8)",
        OPENED,
        guarded=True,
    )
    print(rc, err[-1500:])
    for r in rows:
        print("  ", [c[:300] for c in r])
    # safe: the test's file holds what the test's own call wrote (head, then the fix's FIX!), nothing of the probe's
    assert "the test's file holds: headFIX!\n" in err + "\n" and rc == 0, err[-1500:]


# View.shows: a private OutputStream or Writer field of the method's own class is compared even when the fix does not
# name it. One used as the class's own scratch space (an encoder's buffer, reset before each use) is no more a
# caller's than a private StringBuilder is; a candidate that builds its answer there returns the same string
SCRATCH = """private final java.io.ByteArrayOutputStream scratch = new java.io.ByteArrayOutputStream();
private StringBuilder spareText = new StringBuilder();
"""
HEX = """public String hex(byte[] bytes) {
    StringBuilder out = new StringBuilder();
    for (byte b : bytes) {
        out.append(Character.forDigit((b >> 4) & 15, 16)).append(Character.forDigit(b & 15, 16));
    }
    return out.toString();
}"""
HEX_IN_SCRATCH = """public String hex(byte[] bytes) {
    scratch.reset();
    for (byte b : bytes) {
        scratch.write(Character.forDigit((b >> 4) & 15, 16));
        scratch.write(Character.forDigit(b & 15, 16));
    }
    return scratch.toString();
}"""


def test_a_correct_candidate_using_a_private_scratch_buffer_is_not_told_apart(runner, tmp_path):
    # control: the same body kept in the private StringBuilder the fix does not name is not compared (View)
    builder = HEX.replace("StringBuilder out = new StringBuilder();", "StringBuilder out = spareText;")
    held = probe(runner, tmp_path / "builder", builder, HEX, "new h.Holder().hex(new byte[] {1, 127})", SCRATCH)
    assert not [o for o in held.observations if o.candidate_digest != o.reference_digest], held
    run = probe(runner, tmp_path / "stream", HEX_IN_SCRATCH, HEX, "new h.Holder().hex(new byte[] {1, 127})", SCRATCH)
    differing = [o for o in run.observations if o.candidate_digest != o.reference_digest]
    for o in differing[:1]:
        print("  input:", o.input[:200], "\n  fix:", o.reference[:300], "\n  candidate:", o.candidate[:300])
    assert not run.error and run.calls == 1 and run.skipped == 0, run
    assert not differing, "a correct candidate's private scratch buffer is compared"


# The lead's own attack, after the round (the README's "symlink swap", not run by the red team): a wrong candidate
# finds its own scratch file through its descriptor's link, replaces it with a link to a file that holds what the fix
# would have written (here the project's own copy of the answer, made beforehand in the temporary folder), so that the
# snapshot, which reads the file by its path, would see the fix's bytes where the candidate wrote BAD!
SWAPS = """public int emit(java.io.OutputStream out) throws java.io.IOException {
    out.write("BAD!".getBytes());
    java.io.File answer = java.io.File.createTempFile("answer", ".bin");
    java.nio.file.Files.write(answer.toPath(), "headFIX!".getBytes());
    for (int fd = 0; fd < 1024; fd++) {
        java.io.File link = new java.io.File("/dev/fd/" + fd);
        String path = link.getCanonicalPath();
        if (path.contains("nl2fix-copy") && !path.endsWith("(deleted)")) {
            java.nio.file.Path own = java.nio.file.Paths.get(path);
            java.nio.file.Files.delete(own);
            java.nio.file.Files.createSymbolicLink(own, answer.toPath());
        }
    }
    return 4;
}"""


@pytest.mark.parametrize("guarded", [True, False], ids=["guarded", "unguarded"])
def test_a_candidate_that_swaps_its_scratch_file_for_a_link_does_not_show_the_fix_s_bytes(runner, tmp_path, guarded):
    rc, err, rows = probe_apart(
        runner,
        tmp_path,
        FIX,
        SWAPS,
        "new h.Holder().emit(h.Holder.opened()); h.Holder.check(8)",
        OPENED,
        guarded=guarded,
    )
    print(rc, err[-1500:])
    for r in rows:
        print("  ", [c[:200] for c in r])
    assert rc == 0, err[-1500:]
    call = _call_row(rows)
    # guarded (as in a job): the candidate may neither make the answer's file nor delete its scratch file, and its
    # call throws where the fix's returns; unguarded (the harness alone): the link is made, but the snapshot reads no
    # file through a link. Either way the candidate's outcome is not the fix's
    assert '"headFIX!"' in call[5] and '"headFIX!"' not in call[7] and call[6] != call[8], call
