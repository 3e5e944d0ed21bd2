"""String functions: ``str_replace`` (and its strict forms), ``list_join``, ``str_split``,
``digest`` and ``make_url``."""

from __future__ import annotations

import hashlib
import json
from typing import Any, ClassVar
from urllib.parse import quote, urlencode, urlunsplit

from thermik.template.budget import Meter, brief, size_of
from thermik.template.functions.base import Function, Resolver


def dumps(value: Any) -> str:
    """JSON text as Heat writes it when it embeds a list or map in a string."""
    return json.dumps(value, sort_keys=True)


def dumps_brief(value: Any, limit: int = 2000) -> str:
    """:func:`dumps` for an error message: a short rendering when the JSON would be long."""
    return dumps(value) if size_of(value, limit) <= limit else brief(value)


class Replace(Function):
    """``str_replace: {template: ..., params: {key: value}}`` (2013-05-23 .. 2015-04-30).

    Longer keys are replaced first (ties in lexical order); replaced text is not scanned
    again. Values must be strings or numbers.
    """

    __slots__ = ()

    strict: ClassVar[bool] = False
    allow_empty: ClassVar[bool] = True

    def check(self) -> None:
        mapping, _ = self.parts(self.args)
        if not isinstance(mapping, (dict, Function)):
            raise self.error(f'"{self.name}" parameters must be a mapping')

    def parts(self, args: Any) -> tuple[Any, Any]:
        """(params, template) from the arguments."""
        if not isinstance(args, dict) or "params" not in args or "template" not in args:
            raise self.error(
                f'"{self.name}" syntax should be {self.name}: '
                "{template: This is var1 template var2, params: {var1: a, var2: string}}"
            )
        return args["params"], args["template"]

    def bound(self, meter: Meter, template: str, keys: list[str], values: list[str]) -> None:
        """Refuse a result too large before building it; each key scans the template once.

        Replaced text is not scanned again, so no key can occur more often than it does in
        the template: the sum of the growths is an upper bound.
        """
        meter.charge(self, len(template) * len(keys))
        grown = len(template)
        for key, value in zip(keys, values, strict=True):
            if len(value) > len(key) and key:
                grown += template.count(key) * (len(value) - len(key))
        meter.bound(self, grown)

    def replacement(self, value: Any, key: str, meter: Meter) -> str:
        if value is None:
            return ""
        if not isinstance(value, (str, int, float)):
            raise self.error(
                f'"{self.name}" params must be strings or numbers, param {key} is not valid'
            )
        return str(value)

    def evaluate(self, r: Resolver) -> Any:
        mapping, template = self.parts(self.args)
        template = r.value(template)
        mapping = r.value(mapping)
        if not isinstance(template, str):
            raise self.error(f'"{self.name}" template must be a string')
        if not isinstance(mapping, dict):
            raise self.error(f'"{self.name}" params must be a map')
        for key in mapping:
            if not isinstance(key, str):
                raise self.error(f'"{self.name}" param placeholders must be strings')
        keys = sorted(sorted(mapping), key=len, reverse=True)
        values = [self.replacement(mapping[k], k, r.meter) for k in keys]
        self.bound(r.meter, template, keys, values)
        unused = set(mapping)
        result = _substitute(template, keys, values, unused)
        if self.strict and unused:
            names = ",".join(sorted(sorted(unused), key=len, reverse=True))
            raise self.error(f"The following params were not found in the template: {names}")
        return result


def _substitute(text: str, keys: list[str], values: list[str], unused: set[str]) -> str:
    if not keys:
        return text
    pieces = text.split(keys[0])
    if len(pieces) > 1:
        unused.discard(keys[0])
    return values[0].join(_substitute(p, keys[1:], values[1:], unused) for p in pieces)


class ReplaceJson(Replace):
    """``str_replace`` of 2015-10-15 and later: lists and maps are substituted as JSON."""

    __slots__ = ()

    def replacement(self, value: Any, key: str, meter: Meter) -> str:
        if value is None:
            if self.allow_empty:
                return ""
            raise self.empty(key)
        if isinstance(value, (dict, list)):
            if not self.allow_empty and not value:
                raise self.empty(key)
            meter.bound(self, meter.measure(value))
            return dumps(value)
        if not isinstance(value, (str, int, float)):
            raise self.error(f'"{self.name}" params must be strings, numbers, list or map.')
        text = str(value)
        if not self.allow_empty and not text:
            raise self.empty(key)
        return text

    def empty(self, key: str) -> Exception:
        return self.error(
            f"{self.name} has an undefined or empty value for param {key}, "
            "must be a defined non-empty value"
        )


class ReplaceJsonStrict(ReplaceJson):
    """``str_replace_strict`` (2017-02-24): every param must occur in the template."""

    __slots__ = ()
    strict = True


class ReplaceJsonVeryStrict(ReplaceJsonStrict):
    """``str_replace_vstrict`` (2017-09-01): and no param value may be empty."""

    __slots__ = ()
    allow_empty = False


def _join_usage(fn: Function, multiple: bool) -> Exception:
    more = " ..." if multiple else ""
    return fn.error(
        f'Incorrect arguments to "{fn.name}" should be: "{fn.name}" : '
        f'[ " ", [ "str1", "str2"]{more}]'
    )


class Join(Function):
    """``list_join: [delimiter, [strings]]`` (2013-05-23 .. 2015-04-30, and ``Fn::Join``)."""

    __slots__ = ()

    def check(self) -> None:
        if not isinstance(self.args, list) or len(self.args) != 2:
            raise _join_usage(self, multiple=False)

    def evaluate(self, r: Resolver) -> Any:
        return self.join(r, [r.value(self.args[1]) or []])

    def join(self, r: Resolver, lists: list[Any]) -> str:
        """Join the items of ``lists`` (empty ones skipped) with the resolved delimiter."""
        strings: list[Any] = []
        for item in lists:
            if item:
                if not isinstance(item, list):
                    raise self.error(f'"{self.name}" must operate on a list')
                strings.extend(item)
        delim = r.value(self.args[0])
        if not isinstance(delim, str):
            raise self.error(f'"{self.name}" delimiter must be a string')
        self.bound(r.meter, delim, strings)
        return delim.join(self.item(s) for s in strings)

    def bound(self, meter: Meter, delim: str, items: list[Any]) -> None:
        """Refuse a joined text too large before building it (lists and maps among the items
        count as their JSON would)."""
        meter.charge(self, len(items))
        limit = meter.max_value_size
        size = len(delim) * max(len(items) - 1, 0)
        for item in items:
            if size > limit:
                break
            size += len(item) if isinstance(item, str) else size_of(item, limit)
        meter.bound(self, size)

    def item(self, value: Any) -> str:
        if value is None:
            return ""
        if not isinstance(value, str):
            raise self.error(f"Items to join must be strings not {brief(value)}")
        return value


class JoinMultiple(Join):
    """``list_join: [delimiter, [strings], [more strings]...]`` (2015-10-15 and later).

    Lists and maps among the items are joined as JSON.
    """

    __slots__ = ()

    def check(self) -> None:
        if not isinstance(self.args, list) or len(self.args) < 2:
            raise _join_usage(self, multiple=True)

    def evaluate(self, r: Resolver) -> Any:
        return self.join(r, r.value(self.args[1:]))

    def item(self, value: Any) -> str:
        if value is None:
            return ""
        if isinstance(value, str):
            return value
        if isinstance(value, (dict, list)):
            return dumps(value)
        raise self.error(f"Items to join must be string, map or list not {brief(value)}")


class StrSplit(Function):
    """``str_split: [delimiter, string]`` or ``[delimiter, string, index]`` (2015-10-15)."""

    __slots__ = ()

    def usage(self) -> Exception:
        return self.error(
            f'Incorrect arguments to "{self.name}" should be: '
            f'"{self.name}" : [ ",", "apples,pears", <index>]'
        )

    def check(self) -> None:
        if isinstance(self.args, (str, dict)):
            raise self.usage()

    def evaluate(self, r: Resolver) -> Any:
        args = r.value(self.args)
        if not isinstance(args, list) or len(args) < 2:
            raise self.usage()
        delim, text = args[0], args[1]
        if text is None:
            return None
        if not isinstance(text, str) or not isinstance(delim, str) or not delim:
            raise self.error(f'"{self.name}" needs a non-empty string delimiter and a string')
        parts = split_within(self, r.meter, text, delim)
        if len(args) < 3:
            return parts
        try:
            index = int(args[2])
        except (TypeError, ValueError):
            raise self.usage() from None
        try:
            return parts[index]
        except IndexError:
            raise self.error(
                f'Incorrect index to "{self.name}" should be between 0 and {len(parts) - 1}'
            ) from None


def split_within(fn: Function, meter: Meter, text: str, delim: str) -> list[str]:
    """``text.split(delim)``, refused before splitting when the parts would be too large
    (each part costs as much as a string of its own)."""
    parts = text.count(delim) + 1
    meter.bound(fn, len(text) - (parts - 1) * len(delim) + 3 * parts)
    return text.split(delim)


class Digest(Function):
    """``digest: [algorithm, value]`` (2015-04-30): hex digest by any hashlib algorithm."""

    __slots__ = ()

    def evaluate(self, r: Resolver) -> Any:
        args = r.value(self.args)
        if not (isinstance(args, list) and all(isinstance(a, str) for a in args)):
            raise self.error(f'Argument to function "{self.name}" must be a list of strings')
        if len(args) != 2:
            raise self.error(f'Function "{self.name}" usage: ["<algorithm>", "<value>"]')
        algorithm, value = args
        if algorithm.lower() not in hashlib.algorithms_available:
            raise self.error(
                "Algorithm must be one of " + ", ".join(sorted(hashlib.algorithms_available))
            )
        digest = hashlib.new(algorithm)
        digest.update(value.encode("latin-1"))
        if algorithm.lower().startswith("shake_"):
            raise self.error(f'Algorithm "{algorithm}" needs a length; use a fixed-size one')
        return digest.hexdigest()


class MakeURL(Function):
    """``make_url: {scheme, username, password, host, port, path, query, fragment}``."""

    __slots__ = ()

    KEYS = ("scheme", "username", "password", "host", "port", "path", "query", "fragment")

    def check(self) -> None:
        if isinstance(self.args, Function):
            return
        if not isinstance(self.args, dict):
            raise self.error(f'The arguments to "{self.name}" must be a map')
        invalid = [k for k in self.args if k not in self.KEYS]
        if invalid:
            raise self.error(
                f'Invalid arguments to "{self.name}": ' + ", ".join(map(str, invalid))
            )
        self.check_values(self.args)

    def check_values(self, args: dict[str, Any]) -> None:
        for key, value in args.items():
            if isinstance(value, Function):
                continue
            if key == "query":
                if not isinstance(value, dict):
                    raise self.error(f'The "query" argument to "{self.name}" must be a map')
            elif key == "port":
                self.port(value)
            elif not isinstance(value, str):
                raise self.error(f'The "{key}" argument to "{self.name}" must be a string')

    def port(self, value: Any) -> int:
        try:
            port = value if isinstance(value, int) else int(value)
        except (TypeError, ValueError):
            raise self.error(f'Invalid URL port "{value}" for {self.name}') from None
        if not 0 < port <= 65535:
            raise self.error(f"Invalid URL port {port}, must be in range 1-65535")
        return port

    def evaluate(self, r: Resolver) -> Any:
        args = r.value(self.args)
        if not isinstance(args, dict):
            raise self.error(f'The arguments to "{self.name}" must be a map')
        self.check_values(args)
        scheme = args.get("scheme", "")
        if ":" in scheme:
            raise self.error("URL \"scheme\" should not contain ':'")
        netloc = self.netloc(args)
        path = quote(args.get("path", ""))
        query = urlencode(args.get("query", {})).replace("%2F", "/")
        fragment = quote(args.get("fragment", ""))
        return urlunsplit((scheme, netloc, path, query, fragment))

    def netloc(self, args: dict[str, Any]) -> str:
        username = quote(args.get("username", ""), safe="")
        password = quote(args.get("password", ""), safe="")
        out = ""
        if username or password:
            out = username + (":" + password if password else "") + "@"
        host = args.get("host", "")
        if host.startswith("[") and host.endswith("]"):
            host = host[1:-1]
        host = quote(host, safe=":")
        out += f"[{host}]" if ":" in host else host
        port = args.get("port", "")
        if port:
            out += f":{port}"
        return out
