"""The C++ struct, encode and decode of one schema."""

import os
from typing import List, Optional

from schema import Field, HEADER_BANNER, Schema, Struct, Versions
from cpp_types import (Out, cond_join, cpp_type, default_init, default_value_expr,
                       is_error_code, is_flexible_field, unwrap)


class CodeGen:
    def __init__(self, schema: Schema):
        self.s = schema

    # ---- header

    def header(self) -> str:
        s = self.s
        o = Out()
        o(HEADER_BANNER.format(src=os.path.basename(s.path)).rstrip())
        o("#pragma once")
        o()
        o("#include <cstdint>")
        o("#include <optional>")
        o("#include <string>")
        o("#include <vector>")
        o()
        o('#include "common/bytes.h"')
        if self.uses_strong_types():
            o('#include "common/kafka_types.h"')
        o('#include "common/uuid.h"')
        o('#include "protocol/reader.h"')
        o('#include "protocol/records.h"')
        o('#include "protocol/tagged_fields.h"')
        o('#include "protocol/writer.h"')
        o()
        o("namespace samsa::protocol {")
        o()
        o.block(f"struct {s.cpp}")
        if s.api_key is not None:
            o(f"static constexpr int16_t api_key = {s.api_key};")
        o(f"static constexpr int16_t min_version = {s.valid.lo if not s.valid.empty() else 0};")
        o(f"static constexpr int16_t max_version = {s.valid.hi if s.valid.hi is not None else s.valid.lo};")
        flex = s.flexible.lo if not s.flexible.empty() else -1
        o("// First flexible version (KIP-482), or -1 if none.")
        o(f"static constexpr int16_t first_flexible_version = {flex};")
        o()
        emitted = set()
        for c in s.common:
            self.emit_struct_decl(o, c, emitted)
        self.emit_nested(o, s.top, emitted)
        self.emit_members(o, s.top)
        o()
        self.emit_error_visitor(o, s.top, s.valid)
        o("void encode(writer& w, int16_t version) const;")
        o("// On malformed input the reader is left failed (r.ok() == false).")
        o("void decode(reader& r, int16_t version);")
        o(f"bool operator==(const {s.cpp}&) const = default;")
        o.end("};")
        o()
        o("}  // namespace samsa::protocol")
        return o.text()

    def uses_strong_types(self) -> bool:
        return any(f.strong for st in [self.s.top, *self.s.structs.values()] for f in st.fields)

    def emit_nested(self, o: Out, st: Struct, emitted: set):
        for f in st.fields:
            if f.is_struct and f.struct.name not in emitted:
                self.emit_struct_decl(o, f.struct, emitted)

    def emit_struct_decl(self, o: Out, st: Struct, emitted: set):
        emitted.add(st.name)
        o.block(f"struct {st.cpp}")
        self.emit_nested(o, st, emitted)
        self.emit_members(o, st)
        o()
        self.emit_error_visitor(o, st, st.versions if not st.versions.empty() else self.s.valid)
        o("void encode(writer& w, int16_t version) const;")
        o("void decode(reader& r, int16_t version);")
        o(f"bool operator==(const {st.cpp}&) const = default;")
        o.end("};")
        o()

    def has_error_codes(self, st: Struct) -> bool:
        return any(is_error_code(f) or (f.is_struct and self.has_error_codes(f.struct))
                   for f in st.fields)

    def emit_error_visitor(self, o: Out, st: Struct, within: Versions):
        """Responses: `for_each_error_code(version, f)` calls f with every
        ErrorCode field the response has in `version`, nested ones included:
        what Kafka's errorCounts() counts for RequestMetrics' ErrorsPerSec."""
        if self.s.kind != "response":
            return
        visits = [f for f in st.fields
                  if is_error_code(f) or (f.is_struct and self.has_error_codes(f.struct))]
        if not visits:
            if st is not self.s.top:
                return
            o("template <typename F>")
            o("void for_each_error_code(int16_t, F&&) const {}")
            return
        o("// Every ErrorCode field in `version`, nested ones included (Kafka's errorCounts).")
        o("template <typename F>")
        o.block("void for_each_error_code(int16_t version, F&& f) const")
        o("(void)version;")
        for f in visits:
            cond = f.versions.condition(within)
            if cond == "false":
                continue
            optional = cpp_type(f).startswith("std::optional")
            if is_error_code(f):
                stmt = f"f({f.member});"
            elif f.is_array:
                items = f"*{f.member}" if optional else f.member
                stmt = f"for (const auto& x : {items}) x.for_each_error_code(version, f);"
            else:
                stmt = (f"{f.member}->for_each_error_code(version, f);" if optional
                        else f"{f.member}.for_each_error_code(version, f);")
            guard = cond_join(cond, f.member if optional else None)
            self.wrap(o, guard, lambda stmt=stmt: o(stmt))
        o.end("}")

    def emit_members(self, o: Out, st: Struct):
        for f in st.fields:
            o(f"{cpp_type(f)} {f.member}{default_init(f)};")
        if not self.s.flexible.empty():
            o("unknown_tagged_fields unknown_tags;")

    # ---- source

    def source(self) -> str:
        s = self.s
        o = Out()
        o(HEADER_BANNER.format(src=os.path.basename(s.path)).rstrip())
        o(f'#include "protocol/generated/{s.cpp}.h"')
        o()
        o("#include <algorithm>")
        o()
        o('#include "protocol/codec_helpers.h"')
        o()
        o("namespace samsa::protocol {")
        o()
        done = set()
        for st in list(s.structs.values()):
            self.emit_struct_codec(o, st, f"{s.cpp}::" + self.qualified(st), done)
        self.emit_struct_codec(o, s.top, s.cpp, done)
        o("}  // namespace samsa::protocol")
        return o.text()

    def qualified(self, st: Struct) -> str:
        # Nested type path inside the top struct.
        path = self.parent_path(st)
        return "::".join(path + [st.cpp])

    def parent_path(self, target: Struct) -> List[str]:
        # Find where the struct is declared (first use in declaration order).
        emitted: List[str] = []

        def search(st: Struct, path: List[str]) -> Optional[List[str]]:
            for f in st.fields:
                if f.is_struct and f.struct.name not in emitted:
                    emitted.append(f.struct.name)
                    if f.struct is target:
                        return path
                    r = search(f.struct, path + [f.struct.cpp])
                    if r is not None:
                        return r
            return None

        for c in self.s.common:
            emitted.append(c.name)
            if c is target:
                return []
            r = search(c, [c.cpp])
            if r is not None:
                return r
        r = search(self.s.top, [])
        if r is None:
            raise SystemExit(f"{self.s.path}: cannot place struct {target.name}")
        return r

    def flexible_expr(self) -> str:
        if self.s.flexible.empty():
            return "false"
        c = self.s.flexible.condition(Versions("0+"))
        return c or "true"

    def emit_struct_codec(self, o: Out, st: Struct, qname: str, done: set):
        if qname in done:
            return
        done.add(qname)
        within = st.versions if not st.versions.empty() else self.s.valid
        regular = [f for f in st.fields if not (f.tagged.contains(f.versions.lo) if False else False)]
        tagged = sorted([f for f in st.fields if not f.tagged.empty()], key=lambda f: f.tag)
        has_flex = not self.s.flexible.empty()

        # encode
        o.block(f"void {qname}::encode(writer& w, int16_t version) const")
        if has_flex:
            o(f"const bool flexible = {self.flexible_expr()};")
        else:
            o("const bool flexible = false;")
        o("(void)flexible;")
        for f in regular:
            cond = cond_join(f.versions.condition(within), self.not_tagged_cond(f, within))
            if cond == "false":
                continue
            self.wrap(o, cond, lambda: self.emit_write(o, f, f.member, within))
        if has_flex:
            o.block("if (flexible)")
            o("size_t n = unknown_tags.size();")
            for f in tagged:
                c = cond_join(f.tagged.condition(within), self.differs_from_default(f))
                o(f"n += ({c}) ? 1 : 0;")
            o("w.write_uvarint(uint32_t(n));")
            o("auto u = unknown_tags.begin();")
            for f in tagged:
                if f.tag > 0:  # no unknown tag sorts before tag 0
                    o(f"for (; u != unknown_tags.end() && u->tag < {f.tag}; ++u) {{")
                    o("    w.write_unknown_tag(*u);")
                    o("}")
                c = cond_join(f.tagged.condition(within), self.differs_from_default(f))
                o.block(f"if ({c})")
                o(f"w.write_tagged_field({f.tag}, [&](writer& tw) {{")
                o.indent += 1
                self.emit_write(o, f, f.member, within, w="tw", flexible="true")
                o.indent -= 1
                o("});")
                o.end()
            o("for (; u != unknown_tags.end(); ++u) {")
            o("    w.write_unknown_tag(*u);")
            o("}")
            o.end()
        o.end()
        o()

        # decode
        o.block(f"void {qname}::decode(reader& r, int16_t version)")
        if has_flex:
            o(f"const bool flexible = {self.flexible_expr()};")
        else:
            o("const bool flexible = false;")
        o("(void)flexible;")
        for f in regular:
            cond = cond_join(f.versions.condition(within), self.not_tagged_cond(f, within))
            if cond == "false":
                continue
            self.wrap(o, cond, lambda: self.emit_read(o, f, f.member, within))
        if has_flex:
            o.block("if (flexible)")
            o("r.read_tagged_fields([&](uint32_t tag, uint32_t size) {")
            o.indent += 1
            if tagged:
                o.block("switch (tag)")
                for f in tagged:
                    o(f"case {f.tag}:")
                    o.indent += 1
                    c = f.tagged.condition(within)
                    o.block(f"if ({c or 'true'})")
                    self.emit_read(o, f, f.member, within, r="r", flexible="true")
                    o("return;")
                    o.end()
                    o("break;")
                    o.indent -= 1
                o("default:")
                o("    break;")
                o.end()
            o("r.store_unknown_tag(unknown_tags, tag, size);")
            o.indent -= 1
            o("});")
            o.end()
        o.end()
        o()

    def not_tagged_cond(self, f: Field, within: Versions) -> Optional[str]:
        if f.tagged.empty():
            return None
        c = f.tagged.condition(within)
        if c is None:
            return "false"  # always tagged
        return f"!({c})"

    def differs_from_default(self, f: Field) -> str:
        m = f.member
        if f.is_array and not f.is_nullable:
            return f"!{m}.empty()"
        if f.elem == "uuid" and not f.is_array:
            return f"!{m}.is_zero()"
        if f.elem == "records" and not f.is_array:
            return f"!({m} == {default_value_expr(f)})"
        return f"{m} != {default_value_expr(f)}"

    def wrap(self, o: Out, cond: Optional[str], body):
        if cond:
            o.block(f"if ({cond})")
            body()
            o.end()
        else:
            body()

    # ---- field writers/readers

    def emit_write(self, o: Out, f: Field, expr: str, within: Versions, w: str = "w",
                   flexible: str = "flexible"):
        flex = is_flexible_field(f, flexible)
        if f.is_array:
            if f.is_nullable:
                o.block(f"if (!{expr})")
                o(f"write_null_array({w}, {flex});")
                o.end("} else {")
                o.indent += 1
                self.emit_write_array(o, f, f"(*{expr})", w, flex)
                o.end()
            else:
                self.emit_write_array(o, f, expr, w, flex)
            return
        if f.is_struct:
            if f.is_nullable:
                o.block(f"if (!{expr})")
                o(f"{w}.write_int8(-1);")
                o.end("} else {")
                o.indent += 1
                o(f"{w}.write_int8(1);")
                o(f"{expr}->encode({w}, version);")
                o.end()
            else:
                o(f"{expr}.encode({w}, version);")
            return
        self.emit_write_scalar(o, f.elem, unwrap(f, expr), f.is_nullable, w, flex)

    def emit_write_array(self, o: Out, f: Field, expr: str, w: str, flex: str):
        o(f"write_array_length({w}, {flex}, {expr}.size());")
        o(f"for (const auto& e : {expr}) {{")
        o.indent += 1
        if f.is_struct:
            o(f"e.encode({w}, version);")
        else:
            self.emit_write_scalar(o, f.elem, unwrap(f, "e"), False, w, flex)
        o.indent -= 1
        o("}")

    def emit_write_scalar(self, o: Out, t: str, expr: str, nullable: bool, w: str, flex: str):
        simple = {
            "bool": "write_bool", "int8": "write_int8", "int16": "write_int16",
            "uint16": "write_uint16", "int32": "write_int32", "uint32": "write_uint32",
            "int64": "write_int64", "float64": "write_float64", "uuid": "write_uuid",
        }
        if t in simple:
            o(f"{w}.{simple[t]}({expr});")
        elif t == "string":
            fn = "write_nullable_string_field" if nullable else "write_string_field"
            o(f"{fn}({w}, {flex}, {expr});")
        elif t == "bytes":
            fn = "write_nullable_bytes_field" if nullable else "write_bytes_field"
            o(f"{fn}({w}, {flex}, {expr});")
        elif t == "records":
            o(f"write_records_field({w}, {flex}, {expr});")
        else:
            raise SystemExit(f"unknown type {t}")

    def emit_read(self, o: Out, f: Field, expr: str, within: Versions, r: str = "r",
                  flexible: str = "flexible"):
        flex = is_flexible_field(f, flexible)
        if f.is_nullable:
            nc = f.nullable.condition(within)
            nullable_ok = "true" if nc is None else nc
        else:
            nullable_ok = "false"
        if f.is_array:
            o.block("")
            o(f"int32_t n = read_array_length({r}, {flex});")
            o.block("if (n < 0)")
            if f.is_nullable:
                o.block(f"if (!({nullable_ok}))")
                o(f"{r}.fail();")
                o.end()
                o(f"{expr} = std::nullopt;")
            else:
                o(f"{r}.fail();")
            o.end("} else {")
            o.indent += 1
            target = f"(*{expr})" if f.is_nullable else expr
            if f.is_nullable:
                o(f"{expr}.emplace();")
            o(f"{target}.clear();")
            o(f"{target}.reserve(size_t(n));")
            o(f"for (int32_t i = 0; i < n && {r}.ok(); ++i) {{")
            o.indent += 1
            if f.is_struct:
                o(f"{target}.emplace_back().decode({r}, version);")
            else:
                self.emit_read_scalar(o, f.elem, f"{target}.emplace_back()", False, "false", r, flex,
                                      f.strong)
            o.indent -= 1
            o("}")
            o.end()
            o.end()
            return
        if f.is_struct:
            if f.is_nullable:
                o.block("")
                o(f"int8_t present = {r}.read_int8();")
                o.block("if (present < 0)")
                o.block(f"if (!({nullable_ok}))")
                o(f"{r}.fail();")
                o.end()
                o(f"{expr} = std::nullopt;")
                o.end("} else {")
                o.indent += 1
                # emplace(T()), not emplace(): clang rejects the default
                # constructor of a nested struct with member initialisers here.
                o(f"{expr}.emplace(decltype({expr})::value_type()).decode({r}, version);")
                o.end()
                o.end()
            else:
                o(f"{expr}.decode({r}, version);")
            return
        self.emit_read_scalar(o, f.elem, expr, f.is_nullable, nullable_ok, r, flex, f.strong)

    def emit_read_scalar(self, o: Out, t: str, expr: str, nullable: bool, nullable_ok: str,
                         r: str, flex: str, strong: Optional[str] = None):
        simple = {
            "bool": "read_bool", "int8": "read_int8", "int16": "read_int16",
            "uint16": "read_uint16", "int32": "read_int32", "uint32": "read_uint32",
            "int64": "read_int64", "float64": "read_float64", "uuid": "read_uuid",
        }
        if t in simple:
            value = f"{r}.{simple[t]}()"
            o(f"{expr} = {strong}{{{value}}};" if strong else f"{expr} = {value};")
        elif t == "string":
            if nullable:
                o(f"{expr} = read_nullable_string_field({r}, {flex}, {nullable_ok});")
            else:
                o(f"{expr} = read_string_field({r}, {flex});")
        elif t == "bytes":
            if nullable:
                o(f"{expr} = read_nullable_bytes_field({r}, {flex}, {nullable_ok});")
            else:
                o(f"{expr} = read_bytes_field({r}, {flex});")
        elif t == "records":
            o(f"{expr} = read_records_field({r}, {flex}, {nullable_ok});")
        else:
            raise SystemExit(f"unknown type {t}")
