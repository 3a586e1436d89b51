"""Language models behind one small interface (:class:`Model`), with fakes beside them."""

from .base import Message, Model, ModelResponse, Usage
from .function import FunctionModel

__all__ = ["Message", "Model", "ModelResponse", "Usage", "FunctionModel"]
