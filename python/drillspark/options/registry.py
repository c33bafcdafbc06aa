"""The registry: every option by name, declared once. Names are Drill's spellings
(`exec.rm.queryTags`), looked up without case, as Drill does."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from drillspark.options.kinds import SESSION, Option, OptionError


class OptionRegistry:
    def __init__(self, options: Iterable[Option] = ()) -> None:
        self._options: dict[str, Option] = {}
        for option in options:
            self.declare(option)

    def declare(self, option: Option) -> Option:
        """Add `option` (a plugin's or a format's too); a name is declared once."""
        key = option.name.lower()
        if key in self._options:
            raise ValueError(f"option {option.name} is declared twice")
        self._options[key] = option
        return option

    def get(self, name: str) -> Option | None:
        return self._options.get(name.lower())

    def __getitem__(self, name: str) -> Option:
        """The option `name`, or OptionError with Drill's words."""
        option = self.get(name)
        if option is None:
            raise OptionError(f"The option '{name.lower()}' does not exist.")
        return option

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name.lower() in self._options

    def __iter__(self) -> Iterator[Option]:
        return iter(sorted(self._options.values(), key=lambda o: o.name))

    def __len__(self) -> int:
        return len(self._options)

    def listed(self, internal: bool = False) -> list[Option]:
        """sys.options and /options.json (or sys.internal_options), by name."""
        return [o for o in self if o.internal == internal]

    def default(self, name: str) -> Any:
        return self[name].default

    def checked(self, name: str, value: object, scope: str = SESSION) -> tuple[Option, Any]:
        """A SET's typed value (SQL literal) for `name` in `scope`: the option and the value
        it takes, or OptionError with Drill's words."""
        option = self[name]
        option.check_scope(scope)
        return option, option.value(value, spelled=name)

    def parsed(self, name: str, text: str, scope: str = SESSION) -> tuple[Option, Any]:
        """As `checked`, for text (a REST request's options, the options form)."""
        option = self[name]
        option.check_scope(scope)
        return option, option.parse(text, spelled=name)
