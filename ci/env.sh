# Sourced by the ci/ scripts: which libtorch they build against and where.
#   RANKTEST_LIBTORCH   wheel (default: the pinned PyPI torch, ci/setup) or
#                       debian (libtorch-dev 1.13), or a libtorch 2.x path
#   RANKTEST_BUILD_DIR  build for the wheel, build-debian for Debian's, else
#                       build-other, unless set
RANKTEST_LIBTORCH="${RANKTEST_LIBTORCH:-wheel}"
if [[ -z "${RANKTEST_BUILD_DIR:-}" ]]; then
  case $RANKTEST_LIBTORCH in
    wheel) RANKTEST_BUILD_DIR=build ;;
    debian) RANKTEST_BUILD_DIR=build-debian ;;
    *) RANKTEST_BUILD_DIR=build-other ;;
  esac
fi
export RANKTEST_LIBTORCH RANKTEST_BUILD_DIR
