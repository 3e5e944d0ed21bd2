"""Functions over lists and maps: ``repeat``, ``map_merge``, ``map_replace``,
``list_concat`` (and ``_unique``), ``filter`` and ``contains``."""

from __future__ import annotations

import itertools
import math
from typing import Any, ClassVar

from thermik.template.budget import Meter, Tally, brief
from thermik.template.functions.base import Function, Resolver
from thermik.template.functions.strings import dumps_brief


class Repeat(Function):
    """``repeat: {template: body, for_each: {var: list}}`` (2015-04-30).

    One copy of ``body`` per combination of the lists (all permutations), with each ``var``
    replaced in strings, keys and values.
    """

    __slots__ = ()

    #: Whether a for_each value may be a map (its keys are iterated), 2016-10-14.
    maps_allowed: ClassVar[bool] = False

    def check(self) -> None:
        if not isinstance(self.args, dict):
            raise self.error(f'Arguments to "{self.name}" must be a map')
        if "for_each" not in self.args or "template" not in self.args:
            raise self.error(
                f'"{self.name}" syntax should be {self.name}: '
                "{template: This is %var%, for_each: {%var%: [a, b, c]}}"
            )
        for_each = self.args["for_each"]
        if not isinstance(for_each, (dict, Function)):
            raise self.error(f'The "for_each" argument to "{self.name}" must contain a map')

    def permutations(self) -> bool:
        return True

    def valid_values(self, value: Any, as_permutation: bool) -> None:
        maps = self.maps_allowed and as_permutation
        if not (isinstance(value, list) or (maps and isinstance(value, dict))):
            kind = "lists or maps" if maps else "lists"
            raise self.error(
                f'The values of the "for_each" argument to "{self.name}" must be {kind}'
            )

    def evaluate(self, r: Resolver) -> Any:
        for_each = r.value(self.args["for_each"])
        if not isinstance(for_each, dict) or not for_each:
            raise self.error(f'The "for_each" argument to "{self.name}" must contain a map')
        nested = self.permutations()
        keys = list(for_each)
        values: list[list[Any]] = []
        for value in for_each.values():
            if value is None:
                values.append([])
                continue
            self.valid_values(value, nested)
            values.append(list(value))
        if not nested and len({len(v) for v in values if v}) > 1:
            raise self.error(
                f"For {self.name}, the length of for_each values should be equal if no "
                "nested loop."
            )
        template = r.value(self.args["template"])
        # Every copy is at least as large as the body: refused before the first one is made.
        count = math.prod(map(len, values)) if nested else min(map(len, values), default=0)
        r.meter.bound(self, count * (r.meter.measure(template) + 1))
        combos = itertools.product(*values) if nested else zip(*values, strict=False)
        tally = Tally(r.meter, self)
        return [self.substitute(keys, combo, template, tally) for combo in combos]

    def substitute(
        self, keys: list[Any], combo: tuple[Any, ...], template: Any, tally: Tally
    ) -> Any:
        """One copy of ``template``; ``tally`` counts what the copies hold so far."""
        if isinstance(template, str):
            for key, value in zip(keys, combo, strict=True):
                if not isinstance(key, str) or not isinstance(value, str):
                    raise self.error(
                        f'"{self.name}" replaces strings with strings; got '
                        f"{type(key).__name__} -> {type(value).__name__}"
                    )
                if len(value) > len(key) and key:
                    tally.check(len(template) + template.count(key) * (len(value) - len(key)))
                template = template.replace(key, value)
            tally.add(len(template) + 3)
            return template
        if isinstance(template, list):
            tally.add(len(template) + 3)
            return [self.substitute(keys, combo, item, tally) for item in template]
        if isinstance(template, dict):
            tally.add(2 * len(template) + 3)
            return {
                self.substitute(keys, combo, k, tally): self.substitute(keys, combo, v, tally)
                for k, v in template.items()
            }
        tally.add(8)
        return template


class RepeatWithMap(Repeat):
    """``repeat`` of 2016-10-14: a for_each value may also be a map (its keys are used)."""

    __slots__ = ()
    maps_allowed = True


class RepeatWithNestedLoop(RepeatWithMap):
    """``repeat`` of 2017-09-01: ``permutations: false`` walks the lists side by side."""

    __slots__ = ()

    def check(self) -> None:
        super().check()
        if not isinstance(self.args.get("permutations", True), bool):
            raise self.error(f'"permutations" should be boolean type for {self.name} function.')

    def permutations(self) -> bool:
        return bool(self.args.get("permutations", True))


class MapMerge(Function):
    """``map_merge: [map, map, ...]`` (2016-04-08): later keys win."""

    __slots__ = ()

    def evaluate(self, r: Resolver) -> Any:
        args = r.value(self.args)
        if not isinstance(args, list):
            raise self.error(
                f'Incorrect arguments to "{self.name}" should be: '
                f'"{self.name}" : [ {{ "key1": "val1" }}, {{ "key2": "val2" }} ]'
            )
        merged: dict[Any, Any] = {}
        for item in args:
            if item is None:
                continue
            if not isinstance(item, dict):
                raise self.error(
                    "Incorrect arguments: Items to merge must be maps. "
                    f"{brief(item)} is type {type(item).__name__} instead of a dict"
                )
            merged.update(item)
        return merged


class MapReplace(Function):
    """``map_replace: [map, {keys: {old: new}, values: {old: new}}]`` (2016-10-14)."""

    __slots__ = ()

    def usage(self) -> Exception:
        return self.error(
            f'Incorrect arguments to "{self.name}" should be: "{self.name}" : '
            '[ { "key1": "val1" }, {"keys": {"key1": "key2"}, "values": {"val1": "val2"}}]'
        )

    def as_map(self, value: Any) -> dict[Any, Any]:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.error(
                f'Incorrect arguments: to "{self.name}", arguments must be a list of maps.'
            )
        return value

    def evaluate(self, r: Resolver) -> Any:
        args = r.value(self.args)
        if not isinstance(args, list) or len(args) != 2:
            raise self.usage()
        source, replacements = self.as_map(args[0]), self.as_map(args[1])
        if any(k not in ("keys", "values") for k in replacements):
            raise self.usage()
        new_keys = self.as_map(replacements.get("keys", {}))
        new_values = self.as_map(replacements.get("values", {}))
        out: dict[Any, Any] = {}
        for key, value in source.items():
            new_key = new_keys.get(key)
            if new_key is None:
                new_key = key
            elif new_key in source and new_key != key:
                raise self.error(f"key replacement {new_key} collides with a key in the input map")
            elif new_key in out:
                raise self.error(
                    f"key replacement {new_key} collides with a key in the output map"
                )
            try:
                out[new_key] = new_values.get(value, value)
            except TypeError:
                out[new_key] = value
        return out


class ListConcat(Function):
    """``list_concat: [list, list, ...]`` (2017-09-01)."""

    __slots__ = ()

    unique: ClassVar[bool] = False

    def evaluate(self, r: Resolver) -> Any:
        args = r.value(self.args)
        if not isinstance(args, list):
            raise self.error(
                f'Incorrect arguments to "{self.name}" should be: '
                f'"{self.name}" : [ [ <value 1>, <value 2> ], [ <value 3>, <value 4> ] ]'
            )
        out: list[Any] = []
        for item in args:
            if item is None:
                continue
            if not isinstance(item, list):
                raise self.error(
                    "Incorrect arguments: Items to concat must be lists. "
                    f"{dumps_brief(args)} contains an item that is not a list: "
                    f"{dumps_brief(item)}"
                )
            # Each item costs at least a unit: the count is bounded before anything is copied.
            r.meter.bound(self, len(out) + len(item))
            out.extend(item)
        return unique(self, r.meter, out) if self.unique else out


def unique(fn: Function, meter: Meter, items: list[Any]) -> list[Any]:
    """``items`` without repeats, the first of equal ones kept.

    Hashable items are found in a set; only maps and lists are compared one by one with the
    unhashable items kept so far (that work is spent).
    """
    kept: list[Any] = []
    hashed: set[Any] = set()
    others: list[Any] = []
    for item in items:
        try:
            if item in hashed:
                continue
            hashed.add(item)
        except TypeError:
            meter.charge(fn, len(others) + 1)
            if item in others:
                continue
            others.append(item)
        kept.append(item)
    return kept


class ListConcatUnique(ListConcat):
    """``list_concat_unique``: like ``list_concat`` keeping the first of equal items."""

    __slots__ = ()
    unique = True


class Filter(Function):
    """``filter: [values, list]`` (2017-02-24): ``list`` without any of ``values``."""

    __slots__ = ()

    def check(self) -> None:
        if not isinstance(self.args, list):
            raise self.error(f'Argument to "{self.name}" must be a list')
        if len(self.args) != 2:
            raise self.error(
                f'"{self.name}" expected 2 arguments of the form [values, sequence] but got '
                f"{len(self.args)} arguments instead"
            )

    def evaluate(self, r: Resolver) -> Any:
        sequence = r.value(self.args[1])
        if not sequence:
            return sequence
        if not isinstance(sequence, list):
            raise self.error(f'"{self.name}" only works with lists')
        values = r.value(self.args[0])
        if not values:
            return sequence
        if not isinstance(values, list):
            raise self.error(f'"{self.name}" filters a list of values')
        r.meter.charge(self, len(sequence) * len(values))
        return [item for item in sequence if item not in values]


class Contains(Function):
    """``contains: [value, sequence]`` (2017-09-01): membership test."""

    __slots__ = ()

    def check(self) -> None:
        if not isinstance(self.args, list) or not self.args:
            raise self.error(
                f'Incorrect arguments to "{self.name}" should be: '
                f'"{self.name}" : [ "value1", [ "value1", "value2"]]'
            )
        if len(self.args) != 2:
            raise self.error(
                f'Arguments to "{self.name}" must be of the form: [value1, [value1, value2]]'
            )

    def evaluate(self, r: Resolver) -> Any:
        value = r.value(self.args[0])
        sequence = r.value(self.args[1])
        if not isinstance(sequence, (list, str)):
            raise self.error(f'Second argument to "{self.name}" should be a sequence.')
        if isinstance(sequence, str) and not isinstance(value, str):
            raise self.error(f'"{self.name}" can only find a string in a string')
        return value in sequence
