#!/usr/bin/env python3
"""Validates JSON documents against a JSON Schema: validate_schema.py SCHEMA FILE..."""
import json
import sys

import jsonschema


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: validate_schema.py SCHEMA FILE...")
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    validator = jsonschema.Draft202012Validator(schema)
    failed = False
    for path in sys.argv[2:]:
        with open(path) as f:
            doc = json.load(f)
        for error in validator.iter_errors(doc):
            failed = True
            where = "/".join(str(p) for p in error.absolute_path)
            print(f"{path}: {where}: {error.message}")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
