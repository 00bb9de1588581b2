#!/bin/sh
# The run's chromium as playwright starts it (chromium-launch.mjs gives this as the executable, the
# browser's path in RECDECK_CHROMIUM_BINARY and node's in RECDECK_NODE): every --disable-features list
# given is joined into one, then chromium-pipe.mjs is exec'd in this process's place to start the browser
# and relay its end of the DevTools pipe (fd 4; see there why). Chromium keeps only the LAST
# --disable-features it is given, and playwright gives one of its own (features that disturb
# automation), so a second list would silently drop playwright's.
features=
for arg do
  shift
  case $arg in
    --disable-features=*) features="${features:+$features,}${arg#--disable-features=}" ;;
    *) set -- "$@" "$arg" ;;
  esac
done
exec "${RECDECK_NODE:?the node to run chromium-pipe.mjs with}" "$(dirname "$0")/chromium-pipe.mjs" "${RECDECK_CHROMIUM_BINARY:?the browser to run}" ${features:+"--disable-features=$features"} "$@"
