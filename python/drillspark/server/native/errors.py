"""The native protocol's errors: those of a client that does not speak it, and Drill's error
message (DrillPBError) for a failed query or request."""

from __future__ import annotations

import uuid

from drillspark.errors import UsageError
from drillspark.server.native import messages as m

# Drill's error type of a drillspark failure, by the failure's class name
_ERROR_TYPES = {
    "SqlSyntaxError": m.ErrorType.PARSE,
    "UnsupportedSqlError": m.ErrorType.UNSUPPORTED_OPERATION,
    "TableNotFoundError": m.ErrorType.VALIDATION,
    "ValidationError": m.ErrorType.VALIDATION,
    "QueryPlanError": m.ErrorType.VALIDATION,
    "OptionError": m.ErrorType.VALIDATION,
    "UnknownFunctionError": m.ErrorType.FUNCTION,
    "FunctionArgumentError": m.ErrorType.FUNCTION,
    "StorageError": m.ErrorType.DATA_READ,
}


class NativeProtocolError(UsageError, ValueError):
    """A client that does not follow the user protocol (its connection is closed)."""


def drill_error(message: str, error_type: int = m.ErrorType.SYSTEM) -> m.DrillPBError:
    """Drill's error: `TYPE ERROR: message`, then its id, as a Drillbit words it."""
    error_id = str(uuid.uuid4())
    name = m.ErrorType(error_type).name
    return m.DrillPBError(
        error_id=error_id,
        error_type=error_type,
        message=f"{name} ERROR: {message}\n\n\n[Error Id: {error_id} ]",
    )


def error_type_of(exception: str, state: str) -> int:
    """Drill's error type for a failure (the name of the exception class behind it)."""
    if state == "CANCELED":
        return m.ErrorType.RESOURCE  # cancelled by the server: its time limit, its stop
    return _ERROR_TYPES.get(exception, m.ErrorType.EXECUTION_ERROR)
