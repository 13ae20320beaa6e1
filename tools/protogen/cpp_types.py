"""The C++ types and default values of schema fields, and the line emitter."""

from typing import List, Optional

from schema import Field, PRIMITIVES


# ---------------------------------------------------------------------------
# C++ types and defaults


def is_error_code(f: Field) -> bool:
    # ErrorCode, PartitionErrorCode (AddPartitionsToTxn), AcknowledgeErrorCode
    # (ShareFetch); not CreateTopics' TopicConfigErrorCode, which Kafka's
    # errorCounts leaves out.
    return (f.name.endswith("ErrorCode") and f.name != "TopicConfigErrorCode"
            and f.type == "int16")


def cpp_elem_type(f: Field) -> str:
    if f.is_struct:
        return f.struct.cpp
    return f.strong or PRIMITIVES[f.elem]


def cpp_type(f: Field) -> str:
    base = cpp_elem_type(f)
    if f.is_array:
        base = f"std::vector<{base}>"
    if f.is_nullable and f.elem != "records" or (f.is_nullable and f.is_array):
        return f"std::optional<{base}>"
    return base


def int_literal(text: str, ctype: str) -> str:
    v = int(str(text), 0)
    if ctype == "int64_t":
        if v == -(2**63):
            return "INT64_MIN"
        return f"{v}LL" if abs(v) > 2**31 else str(v)
    if ctype == "int32_t" and v == -(2**31):
        return "INT32_MIN"
    return str(v)


def default_init(f: Field) -> str:
    """Brace initializer for the member, or "" for value-initialised."""
    d = f.default
    if d is not None and not isinstance(d, str):
        d = str(d).lower() if isinstance(d, bool) else str(d)
    ctype = cpp_type(f)
    if d == "null":
        return "{std::nullopt}" if ctype.startswith("std::optional") else ""
    if f.is_array:
        return "{std::vector<%s>{}}" % cpp_elem_type(f) if f.is_nullable else ""
    if f.is_struct:
        return ""
    t = f.elem
    if t == "bool":
        return "{true}" if d == "true" else "{false}"
    if t in ("int8", "int16", "uint16", "int32", "uint32", "int64"):
        return "{%s}" % int_literal(d, PRIMITIVES[t]) if d not in (None, "") else "{0}"
    if t == "float64":
        return "{%s}" % (repr(float(d)) if d not in (None, "") else "0.0")
    if t == "string":
        if d:
            return '{"%s"}' % d.replace("\\", "\\\\").replace('"', '\\"')
        return '{std::string{}}' if f.is_nullable else ""
    if t == "bytes":
        return "{::samsa::bytes{}}" if f.is_nullable else ""
    if t == "records":
        return "{::samsa::protocol::records::empty()}" if d != "null" else ""
    return ""


def default_value_expr(f: Field) -> str:
    """An expression for the default value (to test tagged fields against)."""
    init = default_init(f)
    ctype = cpp_type(f)
    if init:
        return f"{ctype}{init}"
    return f"{ctype}{{}}"


# ---------------------------------------------------------------------------
# Code emission


class Out:
    def __init__(self):
        self.lines: List[str] = []
        self.indent = 0

    def __call__(self, line: str = ""):
        self.lines.append(("    " * self.indent + line) if line else "")

    def block(self, head: str):
        self(head + " {" if head else "{")
        self.indent += 1

    def end(self, tail: str = "}"):
        self.indent -= 1
        self(tail)

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"


def unwrap(f: Field, expr: str) -> str:
    """The wire number of a scalar: a strong type's value."""
    return f"{expr}.value()" if f.strong else expr


def is_flexible_field(f: Field, flexible_var: str) -> str:
    if f.flexible_override is not None:
        if f.flexible_override.empty():
            return "false"
    return flexible_var


def cond_join(*conds: Optional[str]) -> Optional[str]:
    cs = [c for c in conds if c]
    if "false" in cs:
        return "false"
    return " && ".join(f"({c})" if "&&" in c and len(cs) > 1 else c for c in cs) or None
