"""A misspelt function name (``get_parm``) is data, as in Heat, but Thermik says which
function was meant: in ``template validate``'s warnings and in a property's type error."""

from __future__ import annotations

from thermik.template import Template
from thermik.template.spelling import meant_function, misspelt_functions, typo_hint

TYPOS = """\
heat_template_version: 2018-08-31
parameters:
  size: {type: number, default: 1}
resources:
  get_parm:
    type: OS::Heat::RandomString
    properties:
      length: {get_parm: size}
      salt: {list_join: [",", [{get_atr: [other, value]}]]}
      name: {type: data}
outputs:
  shown: {value: {str_replac: {template: x, params: {}}}}
"""


def template(text: str) -> Template:
    return Template.load(text)


def test_close_names_are_found_and_real_ones_are_not() -> None:
    functions = template(TYPOS).version.functions
    assert meant_function("get_parm", functions) == "get_param"
    assert meant_function("get_atr", functions) == "get_attr"
    assert meant_function("get_param", functions) is None
    assert meant_function("type", functions) is None
    assert meant_function("colour", functions) is None


def test_misspellings_in_resources_and_outputs_with_their_paths() -> None:
    found = misspelt_functions(template(TYPOS))
    assert [(".".join(m.path), m.written, m.meant) for m in found] == [
        ("resources.get_parm.properties.length", "get_parm", "get_param"),
        ("resources.get_parm.properties.salt.list_join.1.0", "get_atr", "get_attr"),
        ("outputs.shown.value", "str_replac", "str_replace"),
    ]
    assert str(found[0]) == (
        "resources.get_parm.properties.length: 'get_parm' is not a function of this template "
        "version, so it is taken as data; did you mean 'get_param'?"
    )


def test_a_cfn_template_is_checked_against_its_own_functions() -> None:
    cfn = template(
        "AWSTemplateFormatVersion: 2010-09-09\n"
        "Resources:\n  r:\n    Type: OS::Heat::None\n"
        "    Properties: {a: {Fn::GetAt: [x, y]}, b: {get_param: p}}\n"
    )
    assert [(m.written, m.meant) for m in misspelt_functions(cfn)] == [("Fn::GetAt", "Fn::GetAtt")]


def test_a_property_type_error_says_which_function_was_meant() -> None:
    # The stack's check adds it to the property's error (tests/unit/cmd/test_osc_names.py).
    assert "did you mean 'get_param'?" in typo_hint({"get_parm": "size"})
    assert typo_hint({"colour": "red"}) == ""
    assert typo_hint("get_parm") == ""
