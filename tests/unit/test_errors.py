"""The error tree: places are named, statuses are mapped, failures become values."""

from __future__ import annotations

import inspect

import pytest

from thermik import errors


def all_error_classes() -> list[type[errors.ThermikError]]:
    return [
        obj
        for _, obj in inspect.getmembers(errors, inspect.isclass)
        if issubclass(obj, errors.ThermikError)
    ]


def test_str_names_the_place() -> None:
    err = errors.PropertyError(
        "value is required", path=("resources", "web", "properties", "image")
    )
    assert str(err) == "resources.web.properties.image: value is required"


def test_list_indices_render_as_brackets() -> None:
    err = errors.FunctionError("bad", path=("outputs", "o", "value", "list_join", 1))
    assert str(err) == "outputs.o.value.list_join[1]: bad"


def test_at_prepends_while_unwinding() -> None:
    err = errors.FunctionError("unknown function", path=("get_foo",))
    err.at("resources", "r", "properties", "p")
    assert str(err) == "resources.r.properties.p.get_foo: unknown function"
    assert err.args == (str(err),)


def test_cycle_is_named() -> None:
    err = errors.CircularDependency(["a", "b", "c"])
    assert "a -> b -> c -> a" in str(err)
    assert err.cycle == ("a", "b", "c")


@pytest.mark.parametrize("cls", all_error_classes())
def test_every_class_has_an_http_status_and_docstring(cls: type[errors.ThermikError]) -> None:
    assert 400 <= cls.http_status < 600
    assert cls.__doc__


@pytest.mark.parametrize(
    ("cls", "status"),
    [
        (errors.TemplateError, 400),
        (errors.StackNotFound, 404),
        (errors.TraversalConflict, 409),
        (errors.RequestTooLarge, 413),
        (errors.DatabaseUnavailable, 503),
        (errors.Forbidden, 403),
    ],
)
def test_statuses(cls: type[errors.ThermikError], status: int) -> None:
    assert cls.http_status == status


def test_failure_from_project_error_keeps_retryable() -> None:
    failure = errors.Failure.from_exception(errors.LockConflict("locked by engine e1"))
    assert failure == errors.Failure("LockConflict", "locked by engine e1", retryable=True)


def test_failure_from_foreign_exception() -> None:
    failure = errors.Failure.from_exception(ZeroDivisionError())
    assert failure.type_name == "ZeroDivisionError"
    assert failure.message == "ZeroDivisionError"
    assert not failure.retryable


def test_a_plugin_failure_reads_as_heats_resource_failure() -> None:
    failure = errors.Failure.from_exception(errors.PluginError("went to ERROR"))
    assert str(failure.of_resource("web")) == "Error: resources.web: went to ERROR"
    named = errors.PluginError("Test Resource failed bad", kind="ValueError")
    failure = errors.Failure.from_exception(named).of_resource("bad")
    assert str(failure) == "ValueError: resources.bad: Test Resource failed bad"


def test_a_group_member_is_an_index_in_heats_paths() -> None:
    assert errors.heat_path(("resources", "1")) == "resources[1]"
    assert errors.heat_path(("resources", "group", "resources[1]")) == (
        "resources.group.resources[1]"
    )
    # Thermik's own validation paths keep digit names as names.
    assert errors.format_path(("resources", "1")) == "resources.1"


def test_a_failure_with_a_path_already_under_the_resource_keeps_it() -> None:
    bad = errors.PropertyError("not a number", path=("resources", "b", "properties", "n"))
    failure = errors.Failure.from_exception(bad).of_resource("b")
    assert str(failure) == "StackValidationFailed: resources.b.properties.n: not a number"


def test_an_aborted_action_has_neither_type_nor_path() -> None:
    failure = errors.Failure.from_exception(errors.ActionAborted("UPDATE aborted"))
    assert str(failure) == "UPDATE aborted"
    untyped = errors.Failure.from_exception(errors.PluginError("Timed out", kind=""))
    assert str(untyped.of_resource("child")) == "resources.child: Timed out"
