# Turns a file (text, or a binary image such as a fatbin) into a NUL-terminated C array with a
# given name, aligned to 64 bytes (the driver reads a fatbin's header in place):
#   cmake -DIN=file -DOUT=file.c -DNAME=symbol -P embed_named.cmake
file(READ ${IN} HEX HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," HEX "${HEX}")
file(WRITE ${OUT} "/* generated from ${IN}; do not edit */\n#include <stddef.h>\n"
  "_Alignas(64) const unsigned char ${NAME}[] = {${HEX}0x00};\n"
  "const size_t ${NAME}_len = sizeof ${NAME} - 1;\n")
