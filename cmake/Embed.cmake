# Writes INPUT as a NUL-terminated C array named SYMBOL into OUTPUT.
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hex_len)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" bytes "${bytes}")
file(WRITE "${OUTPUT}" "/* Generated from ${INPUT}; do not edit. */\n#include <stddef.h>\nconst char ${SYMBOL}[] = {\n${bytes}0x00};\nconst size_t ${SYMBOL}Length = sizeof(${SYMBOL}) - 1;\n")
