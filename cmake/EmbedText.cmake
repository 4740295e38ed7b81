# Writes the text of INPUT into OUTPUT as a C++ raw string constant named
# VARIABLE (run with cmake -P at build time, so edits to INPUT rebuild).
file(READ "${INPUT}" content)
file(WRITE "${OUTPUT}.tmp"
  "// Generated from ${INPUT}; do not edit.\n"
  "static const char ${VARIABLE}[] = R\"tegula_embed(${content})tegula_embed\";\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
