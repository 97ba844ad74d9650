from rhumbline.stores.graph import dotted


def test_suffixes_longest_first_and_none_for_a_plain_word() -> None:
    assert dotted.shorter_names("acme.tools.fmt.render") == ["tools.fmt.render", "fmt.render", "render"]
    assert dotted.shorter_names("render") == []
    assert dotted.shorter_names("how is a.b done") == []


def test_a_long_dotted_query_costs_a_bounded_number_of_lookups() -> None:
    suffixes = dotted.shorter_names(".".join(["a"] * 250))
    assert len(suffixes) == dotted.MAX_LOOKUPS
    assert suffixes[0] == ".".join(["a"] * 249)
