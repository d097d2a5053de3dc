"""The JSON Schema subset the bridge's inputSchemas use (Draft 2020-12 keywords:
type, enum, const, min/maxLength, minimum/maximum, exclusiveMinimum/Maximum,
min/maxItems, uniqueItems, items, required, properties, additionalProperties
false, default). Stdlib only, because Blender's Python has no jsonschema."""

import json

_TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    # bool is an int in Python; JSON keeps them apart.
    "integer": lambda v: (isinstance(v, int) and not isinstance(v, bool))
    or (isinstance(v, float) and v.is_integer()),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
}


def _canon(value):
    return json.dumps(value, sort_keys=True)


def validate(schema, value, path="arguments"):
    """Return a list of messages, each naming the failing field; empty when valid."""
    errors = []
    expected = schema.get("type")
    if expected is not None:
        names = expected if isinstance(expected, list) else [expected]
        if not any(_TYPES[name](value) for name in names):
            return ["%s must be %s" % (path, " or ".join(names))]
    if "enum" in schema and _canon(value) not in [_canon(x) for x in schema["enum"]]:
        errors.append("%s must be one of %s" % (path, ", ".join(json.dumps(x) for x in schema["enum"])))
    if "const" in schema and _canon(value) != _canon(schema["const"]):
        errors.append("%s must be %s" % (path, json.dumps(schema["const"])))
    if isinstance(value, str):
        if "minLength" in schema and len(value) < schema["minLength"]:
            errors.append("%s must be at least %d characters" % (path, schema["minLength"]))
        if "maxLength" in schema and len(value) > schema["maxLength"]:
            errors.append("%s must be at most %d characters" % (path, schema["maxLength"]))
    if _TYPES["number"](value):
        if "minimum" in schema and value < schema["minimum"]:
            errors.append("%s must be >= %s" % (path, schema["minimum"]))
        if "maximum" in schema and value > schema["maximum"]:
            errors.append("%s must be <= %s" % (path, schema["maximum"]))
        if "exclusiveMinimum" in schema and value <= schema["exclusiveMinimum"]:
            errors.append("%s must be > %s" % (path, schema["exclusiveMinimum"]))
        if "exclusiveMaximum" in schema and value >= schema["exclusiveMaximum"]:
            errors.append("%s must be < %s" % (path, schema["exclusiveMaximum"]))
    if isinstance(value, list):
        if "minItems" in schema and len(value) < schema["minItems"]:
            errors.append("%s must have at least %d items" % (path, schema["minItems"]))
        if "maxItems" in schema and len(value) > schema["maxItems"]:
            errors.append("%s must have at most %d items" % (path, schema["maxItems"]))
        if schema.get("uniqueItems") and len({_canon(x) for x in value}) != len(value):
            errors.append("%s must not repeat items" % path)
        if isinstance(schema.get("items"), dict):
            for index, item in enumerate(value):
                errors.extend(validate(schema["items"], item, "%s[%d]" % (path, index)))
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for name in schema.get("required", []):
            if name not in value:
                errors.append("%s.%s is required" % (path, name))
        for name, item in value.items():
            if name in properties:
                errors.extend(validate(properties[name], item, "%s.%s" % (path, name)))
            elif schema.get("additionalProperties") is False:
                errors.append("%s.%s is not allowed" % (path, name))
    return errors


def with_defaults(schema, arguments):
    """The arguments with every absent property that declares a default filled in."""
    filled = dict(arguments)
    for name, prop in schema.get("properties", {}).items():
        if name not in filled and "default" in prop:
            filled[name] = json.loads(json.dumps(prop["default"]))
    return filled
