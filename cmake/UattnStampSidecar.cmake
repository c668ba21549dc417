# cmake -DIN=stamp.txt -DOUT=<bundle>.stamp -DARCHS=gfx950,gfx1030 -P UattnStampSidecar.cmake
# Writes a bundle's sidecar: the build stamp lines, then "archs <arch> ...".
file(READ "${IN}" _stamp)
string(REPLACE "," " " _archs "${ARCHS}")
file(WRITE "${OUT}" "${_stamp}archs ${_archs}\n")
