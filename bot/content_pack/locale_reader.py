"""Read one YAML file of the content pack into its model, keeping the line of every value,
and collect each problem with its file and line instead of stopping at the first."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from pydantic import BaseModel, ValidationError

from bot.content_pack.yaml_lines import LocatedYaml, YamlSyntaxError, load_located


@dataclass(frozen=True, slots=True)
class Problem:
    file: Path
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


class ContentError(Exception):
    def __init__(self, problems: list[Problem]) -> None:
        super().__init__(f"the content pack has {len(problems)} problem(s)")
        self.problems = problems


Model = TypeVar("Model", bound=BaseModel)


@dataclass(frozen=True, slots=True)
class Parsed(Generic[Model]):
    """A validated file, with the line of every value for later cross-checks."""

    model: Model
    located: LocatedYaml

    def line(self, path: tuple[str | int, ...]) -> int:
        return self.located.line_of(path)


class LocaleReader:
    """Reads one locale folder, collecting problems instead of stopping at the first."""

    def __init__(self, folder: Path, problems: list[Problem]) -> None:
        self.folder = folder
        self.locale = folder.name
        self.problems = problems

    def read(self, file_name: str, model: type[Model]) -> Parsed[Model] | None:
        path = self.folder / file_name
        if not path.is_file():
            self.problems.append(Problem(path, 1, "file is missing"))
            return None
        try:
            located = load_located(path.read_text("utf-8"))
        except YamlSyntaxError as error:
            self.problems.append(Problem(path, error.line, f"invalid YAML: {error.message}"))
            return None
        except UnicodeDecodeError:
            self.problems.append(Problem(path, 1, "file is not UTF-8"))
            return None
        try:
            parsed = model.model_validate(located.data)
        except ValidationError as error:
            for detail in error.errors():
                where = ".".join(str(part) for part in detail["loc"]) or "file"
                line = located.line_of(detail["loc"])
                self.problems.append(Problem(path, line, f"{where}: {detail['msg']}"))
            return None
        locale = getattr(parsed, "locale", self.locale)
        if locale != self.locale:
            self.problems.append(
                Problem(
                    path,
                    located.line_of(("locale",)),
                    f"locale {locale!r} in folder {self.locale!r}",
                )
            )
        return Parsed(parsed, located)

    def add(self, file_name: str, line: int, message: str) -> None:
        self.problems.append(Problem(self.folder / file_name, line, message))
