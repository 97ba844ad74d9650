from rhumbline.contract import Caller


def test_wildcard_token_sees_every_project():
    caller = Caller(principal="p", token_id="t", projects=("*",), scopes=("read",))
    assert caller.can_see("any/thing")


def test_project_list_is_exact():
    caller = Caller(principal="p", token_id="t", projects=("acme/app",), scopes=("read",))
    assert caller.can_see("acme/app")
    assert not caller.can_see("acme/app2")
    assert not caller.can_see("ACME/app")


def test_admin_implies_every_scope_but_read_does_not():
    admin = Caller(principal="p", token_id="t", projects=("*",), scopes=("admin",))
    reader = Caller(principal="p", token_id="t", projects=("*",), scopes=("read",))
    assert admin.has_scope("cypher") and admin.has_scope("write")
    assert reader.has_scope("read") and not reader.has_scope("write")


def test_success_payload_is_the_outcome_models_dump():
    from rhumbline.contract import ToolOutcome, success_payload

    result = {"items": [{"id": "a", "line": 3, "score": 0.5, "tags": ["x"], "doc": None}], "total": 1}
    assert success_payload("req-1", result, 1.25) == ToolOutcome.success("req-1", result, 1.25).model_dump(mode="json")
    assert ToolOutcome.model_validate(success_payload("req-1", result, 1.25)).ok
