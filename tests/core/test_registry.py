import enum

import pytest

from nl2fix.core.errors import Nl2FixError
from nl2fix.core.registry import Registry


class Kind(str, enum.Enum):
    ONE = "one"
    TWO = "two"


def test_registered_entries_are_looked_up_by_name_in_the_order_they_came():
    registry: Registry[str, int] = Registry("widget")
    registry.register("b")(2)
    registry.add("a", 1)
    assert registry.get("a") == 1 and registry.get("b") == 2
    assert registry.names() == ("b", "a") and list(registry.entries()) == ["b", "a"]


def test_an_unknown_name_is_a_user_facing_error_listing_the_names():
    registry: Registry[Kind, str] = Registry("sandbox")
    registry.add(Kind.ONE, "x")
    registry.add(Kind.TWO, "y")
    with pytest.raises(Nl2FixError) as caught:
        Registry[Kind, str]("sandbox").get(Kind.ONE)
    assert caught.value.message.startswith("unknown sandbox")
    with pytest.raises(Nl2FixError) as caught:
        registry.get("three")  # type: ignore[arg-type]
    assert caught.value.hint == "choose one of one, two"


def test_a_name_registers_once():
    registry: Registry[str, int] = Registry("backend")
    registry.add("openai", 1)
    with pytest.raises(ValueError, match="two backends are registered as 'openai'"):
        registry.add("openai", 2)
