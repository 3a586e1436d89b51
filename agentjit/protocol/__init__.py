"""The tool protocol: manifests, the abstract-state algebra, schema checks, trace events."""

from .manifest import Effect, ToolManifest, ToolType, load_manifest, parse_manifest
from .schema import ToolResult, output_model, to_output_object, validate_inputs, validate_output
from .state import ANY, UNKNOWN, OneOf, apply, join, satisfies, unmet
from .trace import (
    TRACE_FORMAT,
    TRACE_VERSION,
    SessionEvent,
    SnapshotEvent,
    StepEvent,
    Target,
    Trace,
    TraceWriter,
    read_trace,
)

__all__ = [
    "ANY", "UNKNOWN", "OneOf", "apply", "join", "satisfies", "unmet",
    "Effect", "ToolManifest", "ToolType", "load_manifest", "parse_manifest",
    "ToolResult", "output_model", "to_output_object", "validate_inputs", "validate_output",
    "TRACE_FORMAT", "TRACE_VERSION", "SessionEvent", "SnapshotEvent", "StepEvent", "Target",
    "Trace", "TraceWriter", "read_trace",
]
