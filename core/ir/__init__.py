"""onert_py's intermediate representation: Model, Graph, Operand, Operation."""
from .dtypes import numpy_dtype, type_name
from .graph import Graph, Model
from .op_catalog import ir_type_of
from .operand import Operand, Quantization
from .operation import Operation, Params

__all__ = ["Graph", "Model", "Operand", "Operation", "Params", "Quantization", "ir_type_of",
           "numpy_dtype", "type_name"]
