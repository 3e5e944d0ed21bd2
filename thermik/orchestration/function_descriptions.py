"""How ``GET /template_versions/{version}/functions`` describes each template function.

Heat answers with a one-line description per function, starting "A function for ..." (clients
and Heat's own API tests compare them, ``get_file``'s word for word), so Thermik describes its
functions in that form too, by name; a function missing here is described by the first line of
its implementation's docstring.
"""

from __future__ import annotations

_REFERENCES = {
    "get_file": "A function for including a file inline.",
    "get_param": "A function for resolving parameter references.",
    "get_resource": "A function for resolving resource references.",
    "get_attr": "A function for resolving resource attributes.",
    "resource_facade": "A function for retrieving data in a parent provider template.",
    "Ref": "A function for resolving parameters or resource references.",
    "Fn::GetAtt": "A function for resolving resource attributes.",
    "Fn::ResourceFacade": "A function for retrieving data in a parent provider template.",
    "Fn::GetAZs": "A function for retrieving the availability zones.",
    "Fn::FindInMap": "A function for resolving keys in the template mappings.",
}
_STRINGS = {
    "list_join": "A function for joining one or more lists of strings.",
    "str_replace": "A function for performing string substitutions.",
    "str_replace_strict": (
        "A function for performing string substitutions, failing when a param is missing "
        "from the template."
    ),
    "str_replace_vstrict": (
        "A function for performing string substitutions, failing when a param is missing "
        "from the template or its value is empty."
    ),
    "str_split": "A function for splitting delimited strings into a list.",
    "digest": "A function for performing digest operations.",
    "make_url": "A function for building URLs from their parts.",
    "yaql": "A function for evaluating a YAQL expression.",
    "Fn::Join": "A function for joining strings.",
    "Fn::Replace": "A function for performing string substitutions.",
    "Fn::Split": "A function for splitting strings.",
    "Fn::Base64": "A function for encoding a string in base64.",
    "Fn::Select": "A function for selecting an item from a list or map.",
    "Fn::MemberListToMap": "A function to convert lists with enumerated keys and values to a map.",
}
_COLLECTIONS = {
    "map_merge": "A function for merging maps.",
    "map_replace": "A function for performing substitutions on maps.",
    "repeat": "A function for iterating over a list of items.",
    "list_concat": "A function for extending lists.",
    "list_concat_unique": "A function for extending lists with unique items.",
    "filter": "A function for filtering out values from lists.",
    "contains": "A function for checking whether a specific value is in a sequence.",
}
_CONDITIONS = {
    "if": "A function to return the value of a branch chosen by a condition.",
    "equals": "A function for comparing whether two values are equal.",
    "not": "A function that acts on a condition: true when the condition is false.",
    "and": "A function that is true when all the conditions are true.",
    "or": "A function that is true when any of the conditions is true.",
    "Fn::If": "A function to return the value of a branch chosen by a condition.",
    "Fn::Equals": "A function for comparing whether two values are equal.",
    "Fn::Not": "A function that acts on a condition: true when the condition is false.",
    "Fn::And": "A function that is true when all the conditions are true.",
    "Fn::Or": "A function that is true when any of the conditions is true.",
}

#: Function name -> its description in the functions list.
DESCRIPTIONS: dict[str, str] = {**_REFERENCES, **_STRINGS, **_COLLECTIONS, **_CONDITIONS}
