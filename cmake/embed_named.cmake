# Turns a text file into a NUL-terminated C array with a given name:
#   cmake -DIN=file -DOUT=file.c -DNAME=symbol -P embed_named.cmake
file(READ ${IN} HEX HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," HEX "${HEX}")
file(WRITE ${OUT} "/* generated from ${IN}; do not edit */\n#include <stddef.h>\n"
  "const unsigned char ${NAME}[] = {${HEX}0x00};\n"
  "const size_t ${NAME}_len = sizeof ${NAME} - 1;\n")
