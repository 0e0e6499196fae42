# JSON Schema validator benchmark against ajv (../shared/bench/validation/README.md).
mcp_add_bench(json_schema_validation_bench json_schema/validation_bench.cpp)
