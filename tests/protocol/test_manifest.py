"""Manifests: every field, and errors that name the file and the field."""

import json

import pytest

from agentjit.exceptions import ManifestError, ToolInputError, ToolOutputError
from agentjit.protocol import Effect, ToolManifest, load_manifest, output_model, to_output_object
from agentjit.protocol.schema import validate_inputs

GOOD = {
    "name": "add_to_cart",
    "description": "Adds an item to the cart.",
    "type": "setFields",
    "input_schema": {
        "type": "object",
        "properties": {"item_name": {"type": "string"}, "quantity": {"type": "integer", "minimum": 1}},
        "required": ["item_name"],
    },
    "output_schema": {
        "type": "object",
        "properties": {
            "success": {"type": "boolean"},
            "lines": {"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}, "price": {"type": "number"}}}},
        },
        "required": ["success"],
    },
    "pre": {"page": "store"},
    "post": {"page": "store"},
    "pre_check": "return true;",
    "execute": "return {success: true};",
    "post_check": "return output.success === true;",
    "pre_tools": {"item_name": ["list_menu_items"]},
    "effect": "WRITE",
    "elements": ["menu-item", "item-modal"],
    "version": 2,
}


def write(tmp_path, data, name="tool.json"):
    p = tmp_path / name
    p.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return p


def test_load_good_manifest(tmp_path):
    tool = load_manifest(write(tmp_path, GOOD))
    assert tool.effect is Effect.WRITE and tool.is_write
    assert tool.required == ["item_name"]
    assert tool.pre_tools == {"item_name": ["list_menu_items"]}
    assert tool.version == 2 and tool.elements == ["menu-item", "item-modal"]


@pytest.mark.parametrize(
    ("patch", "field"),
    [
        ({"effect": "DELETE"}, "effect"),
        ({"type": "teleport"}, "type"),
        ({"name": "bad name"}, "name"),
        ({"input_schema": {"type": "array"}}, "input_schema"),
        ({"input_schema": {"type": "object", "properties": {"x": {"type": "strin"}}}}, "input_schema"),
        ({"pre": {"page": ["a"]}}, "pre"),
        ({"surprise": 1}, "surprise"),
    ],
)
def test_bad_manifest_names_file_and_field(tmp_path, patch, field):
    path = write(tmp_path, {**GOOD, **patch})
    with pytest.raises(ManifestError) as err:
        load_manifest(path)
    assert err.value.path == str(path)
    assert err.value.field is not None and err.value.field.startswith(field)
    assert str(path) in str(err.value) and field in str(err.value)


def test_missing_execute(tmp_path):
    data = dict(GOOD)
    del data["execute"]
    with pytest.raises(ManifestError, match="execute"):
        load_manifest(write(tmp_path, data))


def test_missing_input_schema_is_an_error_naming_the_file(tmp_path):
    data = {k: v for k, v in GOOD.items() if k != "input_schema"}
    path = write(tmp_path, data)
    with pytest.raises(ManifestError) as err:
        load_manifest(path)
    assert err.value.path == str(path) and err.value.field == "input_schema"
    assert str(err.value).startswith(f"{path}: field 'input_schema': required")
    # built in Python, the empty default still applies
    assert ToolManifest(name="t", description="d", type="observe", execute="return 1;").parameters == {}


def test_invalid_json_names_line(tmp_path):
    with pytest.raises(ManifestError, match=r"tool.json.*line 1"):
        load_manifest(write(tmp_path, '{"name": '))


def test_deeply_nested_or_binary_file_is_an_error_naming_it(tmp_path):
    """Not a RecursionError or UnicodeDecodeError (an "internal error" exit) from a hostile cache file."""
    with pytest.raises(ManifestError, match=r"tool.json.*nested too deeply"):
        load_manifest(write(tmp_path, "[" * 100_000 + "]" * 100_000))
    path = tmp_path / "bin.json"
    path.write_bytes(b"\xff\xfe\x00{}")
    with pytest.raises(ManifestError, match=r"bin.json.*not UTF-8"):
        load_manifest(path)


def test_missing_file(tmp_path):
    with pytest.raises(ManifestError, match="cannot read"):
        load_manifest(tmp_path / "nope.json")


def test_inputs_validated_with_jsonschema():
    tool = ToolManifest.model_validate(GOOD)
    validate_inputs(tool, {"item_name": "Taco", "quantity": 2})
    with pytest.raises(ToolInputError, match="item_name"):
        validate_inputs(tool, {"quantity": 2})
    with pytest.raises(ToolInputError, match="quantity"):
        validate_inputs(tool, {"item_name": "Taco", "quantity": 0})


def test_output_objects_allow_attribute_access():
    tool = ToolManifest.model_validate(GOOD)
    out = to_output_object(tool, {"success": True, "lines": [{"name": "Taco", "price": 3}]})
    assert out.success is True
    assert out.lines[0].name == "Taco" and out.lines[0].price == 3
    assert output_model(tool).__name__ == "AddToCartOutput"
    with pytest.raises(ToolOutputError, match="success"):
        to_output_object(tool, {"lines": []})
