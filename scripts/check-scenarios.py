#!/usr/bin/env python3
"""Validate SessionHub scenario files.

Usage:
    python3 scripts/check-scenarios.py [DIR ...]

Checks every `*.json` file in each DIR (default: the built-in catalogue,
Sources/HubDomain/Resources/Scenarios) against the scenario format described in
docs/SCENARIOS.md. Prints one line per problem, `FILE: problem`, and exits with

    0  every file is valid
    1  at least one problem was found
    2  bad usage (a DIR does not exist or is not a directory)

Python 3 standard library only.
"""

import json
import os
import re
import sys

ID_PATTERN = re.compile(r"[a-z0-9-]{1,64}")
LEVELS = ("A1", "A2", "B1", "B2", "C1", "C2")

# ISO 639-1 two-letter language codes (all 183 current codes).
ISO_639_1 = frozenset("""
aa ab ae af ak am an ar as av ay az ba be bg bi bm bn bo br bs ca ce ch co cr
cs cu cv cy da de dv dz ee el en eo es et eu fa ff fi fj fo fr fy ga gd gl gn
gu gv ha he hi ho hr ht hu hy hz ia id ie ig ii ik io is it iu ja jv ka kg ki
kj kk kl km kn ko kr ks ku kv kw ky la lb lg li ln lo lt lu lv mg mh mi mk ml
mn mr ms mt my na nb nd ne ng nl nn no nr nv ny oc oj om or os pa pi pl ps pt
qu rm rn ro ru rw sa sc sd se sg si sk sl sm sn so sq sr ss st su sv sw ta te
tg th ti tk tl tn to tr ts tt tw ty ug uk ur uz ve vi vo wa wo xh yi yo za zh
zu
""".split())

TOP_KEYS = ("id", "title", "summary", "targetLanguage", "level", "roles",
            "minPlayers", "maxPlayers", "goal", "hints")
ROLE_KEYS = ("name", "description")
GOAL_KEYS = ("lines", "description")
HINT_KEYS = ("roleName", "textNative", "textTranslated")

ROLES_MIN, ROLES_MAX = 2, 6
MAX_PLAYERS_MIN, MAX_PLAYERS_MAX = 2, 8
MIN_PLAYERS_MIN = 1
GOAL_LINES_MIN, GOAL_LINES_MAX = 8, 30
HINTS_MIN, HINTS_MAX = 5, 10


class DuplicateKeyError(ValueError):
    pass


def _no_duplicate_keys(pairs):
    result = {}
    for key, value in pairs:
        if key in result:
            raise DuplicateKeyError(f"duplicate key {key!r}")
        result[key] = value
    return result


def _type_name(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number with a fraction or exponent"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return type(value).__name__


class Checker:
    def __init__(self):
        self.problems = []

    def problem(self, message):
        self.problems.append(message)

    def check_keys(self, obj, expected, where):
        """obj must be an object with exactly the expected keys. Returns False if not an object."""
        if not isinstance(obj, dict):
            self.problem(f"{where} must be an object, found {_type_name(obj)}")
            return False
        for key in expected:
            if key not in obj:
                self.problem(f"{where}: missing required key {key!r}")
        for key in obj:
            if key not in expected:
                self.problem(f"{where}: unknown key {key!r} (allowed: {', '.join(expected)})")
        return True

    def check_string(self, obj, key, where):
        """Returns the string if present and non-blank, else None."""
        if key not in obj:
            return None
        value = obj[key]
        if not isinstance(value, str):
            self.problem(f"{where}.{key} must be a string, found {_type_name(value)}")
            return None
        if not value.strip():
            self.problem(f"{where}.{key} must not be empty or only whitespace")
            return None
        return value

    def check_int(self, obj, key, where, low, high):
        """Returns the integer if present and in low...high (high may be None), else None."""
        if key not in obj:
            return None
        value = obj[key]
        if isinstance(value, bool) or not isinstance(value, int):
            self.problem(f"{where}.{key} must be an integer, found {_type_name(value)}")
            return None
        if value < low or (high is not None and value > high):
            bound = f"{low}..{high}" if high is not None else f">= {low}"
            self.problem(f"{where}.{key} is {value}, must be {bound}")
            return None
        return value

    def check_array(self, obj, key, where, low, high, noun):
        """Returns the list if present and an array (count problems are reported), else None."""
        if key not in obj:
            return None
        value = obj[key]
        if not isinstance(value, list):
            self.problem(f"{where}.{key} must be an array, found {_type_name(value)}")
            return None
        if not low <= len(value) <= high:
            self.problem(f"{where}.{key} has {len(value)} {noun}, must have {low}..{high}")
        return value

    def check_scenario(self, data, stem):
        if not self.check_keys(data, TOP_KEYS, "top level"):
            return

        # id
        scenario_id = None
        if "id" in data:
            scenario_id = data["id"]
            if not isinstance(scenario_id, str):
                self.problem(f"id must be a string, found {_type_name(scenario_id)}")
                scenario_id = None
            elif not ID_PATTERN.fullmatch(scenario_id):
                self.problem(f"id {scenario_id!r} is invalid: use 1..64 characters from a-z, 0-9 and '-'")
        if scenario_id is not None and scenario_id != stem:
            self.problem(f"id {scenario_id!r} does not match the file name {stem + '.json'!r} "
                         f"(name the file {scenario_id + '.json'!r} or change the id to {stem!r})")

        self.check_string(data, "title", "")
        self.check_string(data, "summary", "")

        # targetLanguage
        if "targetLanguage" in data:
            lang = data["targetLanguage"]
            if not isinstance(lang, str):
                self.problem(f"targetLanguage must be a string, found {_type_name(lang)}")
            elif lang not in ISO_639_1:
                hint = " (use lowercase)" if lang.lower() in ISO_639_1 else ""
                self.problem(f"targetLanguage {lang!r} is not an ISO 639-1 two-letter code{hint}")

        # level
        if "level" in data:
            level = data["level"]
            if not isinstance(level, str):
                self.problem(f"level must be a string, found {_type_name(level)}")
            elif level not in LEVELS:
                self.problem(f"level {level!r} is not a CEFR level (one of {', '.join(LEVELS)})")

        # roles
        role_names = set()
        roles_ok = False
        roles = self.check_array(data, "roles", "", ROLES_MIN, ROLES_MAX, "roles")
        if roles is not None:
            roles_ok = True
            for index, role in enumerate(roles):
                where = f"roles[{index}]"
                if not self.check_keys(role, ROLE_KEYS, where):
                    roles_ok = False
                    continue
                name = self.check_string(role, "name", where)
                self.check_string(role, "description", where)
                if name is None:
                    roles_ok = False
                    continue
                if name in role_names:
                    self.problem(f"{where}.name {name!r} is used by more than one role")
                role_names.add(name)

        # players
        min_players = self.check_int(data, "minPlayers", "", MIN_PLAYERS_MIN, None)
        max_players = self.check_int(data, "maxPlayers", "", MAX_PLAYERS_MIN, MAX_PLAYERS_MAX)
        if min_players is not None and max_players is not None and min_players > max_players:
            self.problem(f"minPlayers ({min_players}) is greater than maxPlayers ({max_players})")

        # goal
        if "goal" in data and self.check_keys(data["goal"], GOAL_KEYS, "goal"):
            self.check_int(data["goal"], "lines", "goal", GOAL_LINES_MIN, GOAL_LINES_MAX)
            self.check_string(data["goal"], "description", "goal")

        # hints
        hints = self.check_array(data, "hints", "", HINTS_MIN, HINTS_MAX, "hints")
        if hints is not None:
            for index, hint in enumerate(hints):
                where = f"hints[{index}]"
                if not self.check_keys(hint, HINT_KEYS, where):
                    continue
                role_name = self.check_string(hint, "roleName", where)
                self.check_string(hint, "textNative", where)
                self.check_string(hint, "textTranslated", where)
                # Only judge roleName against a role list that was itself readable.
                if role_name is not None and roles_ok and role_name not in role_names:
                    known = ", ".join(sorted(role_names)) or "none"
                    self.problem(f"{where}.roleName {role_name!r} is not one of the scenario's roles ({known})")


def _clean(message):
    # Top-level fields are reported without a leading dot ("title", not ".title").
    return message[1:] if message.startswith(".") else message


def check_file(path):
    """Returns a list of problems for one file."""
    stem = os.path.basename(path)[: -len(".json")]
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as error:
        return [f"cannot read file: {error.strerror or error}"]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        return [f"not valid UTF-8 (byte offset {error.start})"]
    if text.startswith("\ufeff"):
        return ["file starts with a byte-order mark; save it as UTF-8 without BOM"]
    try:
        data = json.loads(text, object_pairs_hook=_no_duplicate_keys,
                          parse_constant=lambda name: _reject_constant(name))
    except DuplicateKeyError as error:
        return [f"invalid JSON: {error}"]
    except json.JSONDecodeError as error:
        return [f"invalid JSON: {error.msg} (line {error.lineno}, column {error.colno})"]
    except ValueError as error:
        return [f"invalid JSON: {error}"]
    checker = Checker()
    checker.check_scenario(data, stem)
    return [_clean(p) for p in checker.problems]


def _reject_constant(name):
    raise ValueError(f"{name} is not valid JSON")


def main(argv):
    args = argv[1:]
    if any(a in ("-h", "--help") for a in args):
        print(__doc__.strip())
        return 0
    if not args:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        args = [os.path.join(root, "Sources", "HubDomain", "Resources", "Scenarios")]

    for directory in args:
        if not os.path.isdir(directory):
            print(f"error: {directory}: not a directory", file=sys.stderr)
            return 2

    total_files = 0
    bad_files = 0
    total_problems = 0
    for directory in args:
        entries = sorted(os.listdir(directory))
        files = [e for e in entries
                 if e.endswith(".json") and os.path.isfile(os.path.join(directory, e))]
        for entry in entries:
            if entry not in files:
                print(f"note: {os.path.join(directory, entry)}: skipped (not a *.json file)",
                      file=sys.stderr)
        if not files:
            print(f"{directory}: no *.json files found")
            total_problems += 1
            continue
        for name in files:
            path = os.path.join(directory, name)
            total_files += 1
            problems = check_file(path)
            if problems:
                bad_files += 1
                total_problems += len(problems)
                for problem in problems:
                    print(f"{path}: {problem}")
            else:
                print(f"{path}: ok")

    if total_problems:
        print(f"FAILED: {total_problems} problem(s); {bad_files} of {total_files} file(s) invalid")
        return 1
    print(f"OK: {total_files} scenario file(s) valid")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
