import pytest

from nl2fix.core.bug_ids import canonical_key, resolve
from nl2fix.core.errors import Nl2FixError

KNOWN = ["JxPath-20", "JxPath-21", "Math-19", "Cli-5", "JacksonDatabind-12"]


@pytest.mark.parametrize("spelling", ["JxPath-20", "JXPath-20", "jxpath_20", "JxPath-20b", "jxpath 20", "JXPATH20"])
def test_spellings_resolve_to_one_bug(spelling):
    assert resolve(spelling, KNOWN) == "JxPath-20"


def test_canonical_key_rejects_non_ids():
    assert canonical_key("hello") is None
    assert canonical_key("20") is None


def test_unknown_number_suggests_same_project_nearest_first():
    with pytest.raises(Nl2FixError) as err:
        resolve("JxPath-22", KNOWN)
    assert "JxPath-22" in err.value.message
    assert err.value.hint.startswith("did you mean JxPath-21")


def test_misspelt_project_suggests_its_bugs():
    with pytest.raises(Nl2FixError) as err:
        resolve("JacksonDatabnd-12", KNOWN)
    assert "JacksonDatabind-12" in err.value.hint


@pytest.mark.parametrize("spelling", ["Textkit-l", "textkit_I", "Textkit-1O"])
def test_letters_that_look_like_digits_suggest_the_bug_they_spell(spelling):
    known = [f"Textkit-{n}" for n in range(1, 6)] + ["Textkit-10"]
    with pytest.raises(Nl2FixError) as err:  # a guess is suggested, never taken
        resolve(spelling, known)
    number = "10" if spelling.endswith("O") else "1"
    assert err.value.hint.startswith(f"did you mean Textkit-{number},")
