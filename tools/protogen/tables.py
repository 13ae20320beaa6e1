"""The API table and the body decoders that span every request and response."""

from typing import Dict, List

from schema import HEADER_BANNER, Schema, snake
from cpp_types import Out


# ---------------------------------------------------------------------------
# API table and round-trip test data


def api_table(schemas: List[Schema]) -> Dict[str, str]:
    reqs = {s.api_key: s for s in schemas if s.kind == "request"}
    resps = {s.api_key: s for s in schemas if s.kind == "response"}
    keys = sorted(reqs)
    h = Out()
    h(HEADER_BANNER.format(src="*Request.json / *Response.json").rstrip())
    h("#pragma once")
    h()
    h("#include <cstdint>")
    h("#include <span>")
    h("#include <string_view>")
    h()
    h("namespace samsa::protocol {")
    h()
    h("enum class api_key : int16_t {")
    for k in keys:
        h(f"    {snake(reqs[k].name[:-len('Request')])} = {k},")
    h("};")
    h()
    h("// What Kafka's schemas say about one API. Which versions Samsa serves is")
    h("// stated by each handler (server/handlers/), not here.")
    h("struct api_schema_info {")
    h("    int16_t key;")
    h("    std::string_view name;")
    h("    int16_t min_version;")
    h("    int16_t max_version;")
    h("    // First version using flexible encodings and request header v2 /")
    h("    // response header v1, or -1.")
    h("    int16_t first_flexible_version;")
    h("    // Versions above this are marked unstable in the schema (latestVersionUnstable).")
    h("    int16_t max_stable_version;")
    h("    bool broker_listener;")
    h("    bool controller_listener;")
    h("};")
    h()
    h("std::span<const api_schema_info> all_api_schemas();")
    h("const api_schema_info* find_api_schema(int16_t key);")
    h("std::string_view api_name(int16_t key);")
    h()
    h("// Request header version for (api, version): 2 when flexible, else 1; 0 for")
    h("// ControlledShutdown v0, which predates the client id. -1 for an unknown api.")
    h("int16_t request_header_version(int16_t key, int16_t version);")
    h("// Response header version: 1 when flexible, else 0; ApiVersions always 0")
    h("// (clients must parse it before they know which versions the broker speaks).")
    h("int16_t response_header_version(int16_t key, int16_t version);")
    h()
    h("}  // namespace samsa::protocol")

    c = Out()
    c(HEADER_BANNER.format(src="*Request.json / *Response.json").rstrip())
    c('#include "protocol/generated/api_table.h"')
    c()
    c("namespace samsa::protocol {")
    c()
    c("namespace {")
    c()
    c("constexpr api_schema_info k_apis[] = {")
    for k in keys:
        s = reqs[k]
        flex = s.flexible.lo if not s.flexible.empty() else -1
        mx = s.valid.hi if s.valid.hi is not None else s.valid.lo
        stable = mx - 1 if s.latest_unstable else mx
        c(f'    {{{k}, "{s.name[:-len("Request")]}", {s.valid.lo}, {mx}, {flex}, {stable}, '
          f'{"true" if "broker" in s.listeners else "false"}, '
          f'{"true" if "controller" in s.listeners else "false"}}},')
    c("};")
    c()
    c("}  // namespace")
    c()
    c("std::span<const api_schema_info> all_api_schemas() { return k_apis; }")
    c()
    c("const api_schema_info* find_api_schema(int16_t key) {")
    c("    for (const auto& a : k_apis) {")
    c("        if (a.key == key) {")
    c("            return &a;")
    c("        }")
    c("    }")
    c("    return nullptr;")
    c("}")
    c()
    c("std::string_view api_name(int16_t key) {")
    c("    const auto* a = find_api_schema(key);")
    c('    return a ? a->name : std::string_view("Unknown");')
    c("}")
    c()
    c("int16_t request_header_version(int16_t key, int16_t version) {")
    c("    const auto* a = find_api_schema(key);")
    c("    if (!a) {")
    c("        return -1;")
    c("    }")
    c("    if (key == int16_t(api_key::controlled_shutdown) && version == 0) {")
    c("        return 0;")
    c("    }")
    c("    return a->first_flexible_version >= 0 && version >= a->first_flexible_version ? 2 : 1;")
    c("}")
    c()
    c("int16_t response_header_version(int16_t key, int16_t version) {")
    c("    const auto* a = find_api_schema(key);")
    c("    if (!a || key == int16_t(api_key::api_versions)) {")
    c("        return 0;")
    c("    }")
    c("    return a->first_flexible_version >= 0 && version >= a->first_flexible_version ? 1 : 0;")
    c("}")
    c()
    c("}  // namespace samsa::protocol")
    for k in keys:
        if k not in resps:
            raise SystemExit(f"api {k} has no response schema")
    return {"api_table.h": h.text(), "api_table.cc": c.text()}


def body_decoders(schemas: List[Schema]) -> Dict[str, str]:
    """decode_request_body / decode_response_body: any api's body by key and
    version, for the fuzz targets (tests/fuzz/) that feed every decoder."""
    reqs = {s.api_key: s for s in schemas if s.kind == "request"}
    resps = {s.api_key: s for s in schemas if s.kind == "response"}
    h = Out()
    h(HEADER_BANNER.format(src="*Request.json / *Response.json").rstrip())
    h("#pragma once")
    h("// Decodes the body of any api (request or response) in `version` into a")
    h("// throw-away message: what a reader of untrusted bytes does first. False when")
    h("// the key is unknown or the bytes did not decode (r.ok() is false then too).")
    h()
    h("#include <cstdint>")
    h()
    h('#include "protocol/reader.h"')
    h()
    h("namespace samsa::protocol {")
    h()
    h("bool decode_request_body(int16_t key, int16_t version, reader& r);")
    h("bool decode_response_body(int16_t key, int16_t version, reader& r);")
    h()
    h("}  // namespace samsa::protocol")
    c = Out()
    c(HEADER_BANNER.format(src="*Request.json / *Response.json").rstrip())
    c('#include "protocol/generated/body_decoders.h"')
    c()
    for k in sorted(reqs):
        c(f'#include "protocol/generated/{reqs[k].cpp}.h"')
        c(f'#include "protocol/generated/{resps[k].cpp}.h"')
    c()
    c("namespace samsa::protocol {")
    c()
    c("namespace {")
    c()
    c("template <typename M>")
    c("bool decode_as(int16_t version, reader& r) {")
    c("    M m;")
    c("    m.decode(r, version);")
    c("    return r.ok();")
    c("}")
    c()
    c("}  // namespace")
    for fn, table in (("decode_request_body", reqs), ("decode_response_body", resps)):
        c()
        c(f"bool {fn}(int16_t key, int16_t version, reader& r) {{")
        c("    switch (key) {")
        for k in sorted(table):
            c(f"        case {k}:")
            c(f"            return decode_as<{table[k].cpp}>(version, r);")
        c("        default:")
        c("            return false;")
        c("    }")
        c("}")
    c()
    c("}  // namespace samsa::protocol")
    return {"body_decoders.h": h.text(), "body_decoders.cc": c.text()}
