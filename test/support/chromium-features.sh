#!/bin/sh
# The run's chromium as playwright starts it (chromium-launch.mjs gives this as the executable, and the
# browser's path in RECDECK_CHROMIUM_BINARY): every --disable-features list given is joined into one, then
# the browser is exec'd in this process's place (its pipes, the DevTools ones on fds 3 and 4 included,
# stay its own). Chromium keeps only the LAST --disable-features it is given, and playwright gives one of
# its own (features that disturb automation), so a second list would silently drop playwright's.
features=
for arg do
  shift
  case $arg in
    --disable-features=*) features="${features:+$features,}${arg#--disable-features=}" ;;
    *) set -- "$@" "$arg" ;;
  esac
done
exec "${RECDECK_CHROMIUM_BINARY:?the browser to run}" ${features:+"--disable-features=$features"} "$@"
