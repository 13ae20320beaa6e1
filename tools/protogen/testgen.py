"""The encode/decode round-trip tests of every schema and version."""

from typing import Dict, List

from schema import Field, HEADER_BANNER, PRIMITIVES, Schema, Struct, Versions
from cpp_types import Out
from codegen import CodeGen


class TestGen:
    """Emits populate functions that set every field present in a version to a
    non-default value, for the encode/decode round-trip tests."""

    def __init__(self, schema: Schema):
        self.s = schema
        self.counter = 0

    def populate_fn(self) -> str:
        s = self.s
        o = Out()
        o.block(f"void populate(protocol::{s.cpp}& m, int16_t version, int seed)")
        o("(void)version;")
        o("(void)seed;")
        self.emit_fields(o, s.top, "m", s.valid, depth=0)
        if not s.flexible.empty():
            o(f"if (version >= {s.flexible.lo}) {{")
            o("    m.unknown_tags.push_back({1000, {1, 2, 3}});")
            o("}")
        o.end()
        return o.text()

    def emit_fields(self, o: Out, st: Struct, obj: str, within: Versions, depth: int):
        for f in st.fields:
            cond = f.versions.condition(within)
            if cond == "false":
                continue
            self.counter += 1
            n = self.counter
            o.block(f"if ({cond or 'true'})")
            self.emit_value(o, f, f"{obj}.{f.member}", within, depth, n)
            o.end()

    def emit_value(self, o: Out, f: Field, target: str, within: Versions, depth: int, n: int):
        # Nullable fields are null in every third field, when null is legal.
        if f.is_nullable and n % 3 == 0:
            nc = f.nullable.condition(within)
            o.block(f"if ({nc or 'true'})")
            if f.elem == "records" and not f.is_array:
                o(f"{target} = protocol::records{{}};")
            else:
                o(f"{target} = std::nullopt;")
            o("return_point:;") if False else None
            o.end("} else {")
            o.indent += 1
            self.emit_nonnull(o, f, target, within, depth, n)
            o.end()
            return
        self.emit_nonnull(o, f, target, within, depth, n)

    def emit_nonnull(self, o: Out, f: Field, target: str, within: Versions, depth: int, n: int):
        if f.is_array:
            vec = f"std::vector<{self.elem_cpp(f)}>"
            o(f"{target} = {vec}{{}};")
            ref = f"(*{target})" if f.is_nullable else target
            count = 0 if depth >= 3 else 2
            for i in range(count):
                o.block("")
                ev = f"e{depth}"
                o(f"auto& {ev} = {ref}.emplace_back();")
                if f.is_struct:
                    self.emit_fields(o, f.struct, ev, f.struct.versions if not f.struct.versions.empty() else within, depth + 1)
                    if not self.s.flexible.empty():
                        pass
                else:
                    o(f"{ev} = {self.scalar_of(f, n * 10 + i)};")
                o.end()
            return
        if f.is_struct:
            if f.is_nullable:
                o(f"{target}.emplace();")
                self.emit_fields(o, f.struct, f"(*{target})", f.struct.versions, depth + 1)
            else:
                self.emit_fields(o, f.struct, target, f.struct.versions, depth + 1)
            return
        o(f"{target} = {self.scalar_of(f, n)};")

    def scalar_of(self, f: Field, n: int) -> str:
        value = self.scalar_value(f.elem, n)
        return f"{f.strong}{{{value}}}" if f.strong else value

    def elem_cpp(self, f: Field) -> str:
        if f.is_struct:
            return "protocol::" + self.qualified(f.struct)
        return f.strong or PRIMITIVES[f.elem]

    def qualified(self, st: Struct) -> str:
        return f"{self.s.cpp}::" + CodeGen(self.s).qualified(st)

    def scalar_value(self, t: str, n: int) -> str:
        if t == "bool":
            return "true"
        if t in ("int8",):
            return f"int8_t(seed + {n % 100 + 1})"
        if t in ("int16", "uint16"):
            return f"{PRIMITIVES[t]}(seed + {n + 1000})"
        if t in ("int32", "uint32"):
            return f"{PRIMITIVES[t]}(seed + {n * 7919 + 100000})"
        if t == "int64":
            return f"int64_t(seed) + {n * 104729 + 5000000000}LL"
        if t == "float64":
            return f"double(seed) + {n}.25"
        if t == "string":
            return f'std::string("s{n}-") + std::to_string(seed)'
        if t == "bytes":
            return f"::samsa::bytes{{uint8_t({n % 256}), uint8_t(seed), 0, 255}}"
        if t == "uuid":
            return f"test_uuid({n})"
        if t == "records":
            return "test_records()"
        raise SystemExit(f"unknown type {t}")


def roundtrip_tests(schemas: List[Schema], shards: int) -> Dict[str, str]:
    out = {}
    ordered = sorted(schemas, key=lambda s: s.cpp)
    for i in range(shards):
        part = ordered[i::shards]
        o = Out()
        o(HEADER_BANNER.format(src="the schemas").rstrip())
        o("// Round trip of every message in every version: populate every field the")
        o("// version has, encode, decode, compare; re-encode and compare bytes.")
        o('#include "protocol/roundtrip_support.h"')
        o()
        for s in part:
            o(f'#include "protocol/generated/{s.cpp}.h"')
        o()
        o("namespace samsa {")
        o("namespace {")
        o()
        o("using protocol::test_records;")
        o("using protocol::test_uuid;")
        o()
        for s in part:
            o(TestGen(s).populate_fn().rstrip())
            o()
        for s in part:
            o(f"TEST(generated_roundtrip, {s.cpp}) {{")
            o(f"    protocol::check_roundtrip<protocol::{s.cpp}>(")
            o(f"        [](protocol::{s.cpp}& m, int16_t v, int seed) {{ populate(m, v, seed); }});")
            o("}")
            o()
        o("}  // namespace")
        o("}  // namespace samsa")
        out[f"roundtrip_{i}_test.cc"] = o.text()
    return out
