#pragma once

// A rank's stack as a person reads it: the frames of the test and of ranktest
// in full, the machinery between them (libtorch, c10, Gloo, libstdc++, libc)
// folded into one line per run of consecutive frames, e.g.
//   ... 14 frames in libc10.so, libtorch_cpu.so, ATen headers
// RANKTEST_VERBOSE=1 prints every frame as it was resolved.
//
// A library frame is one of
//  - a shared library's frame (`module(function+0x..)[0x..]`, unresolved by
//    addr2line) whose module lives in a system or Python-package location
//    (/usr, /lib, /opt, site-packages, dist-packages) or is one of the
//    runtime's own (libtorch*, libc10*, libgloo*, libstdc++, libc, libgcc_s,
//    ld-linux, libnccl*, libcuda*);
//  - a frame resolved to a header of such a location or of any libstdc++
//    (`.../include/c++/...`): code of a library inlined into the test binary.
// Everything else stays: the test binary's frames from any other source
// (the user's, ranktest's own), a user's own shared libraries, markers.

#include <string>
#include <vector>

namespace ranktest::internal {

// The stack lines (as RankReport::stack holds them) with each run of two or
// more library frames folded into one line; a lone library frame keeps its
// text, its module without its directory. Long template argument lists in
// the frames kept are shortened (shortenFrame).
std::vector<std::string> foldLibraryFrames(
    const std::vector<std::string>& stack);

// `frame` with each outermost template argument list longer than a few
// words replaced by "<...>" when the frame is longer than a line, e.g.
// "std::_Function_handler<void (), ...460 chars...>::_M_invoke(...)" ->
// "std::_Function_handler<...>::_M_invoke(std::_Any_data const&)".
std::string shortenFrame(const std::string& frame);

// The library a stack line belongs to ("libtorch_cpu.so", "libstdc++",
// "ATen headers"), or "" for a frame to keep and for non-frame lines.
std::string libraryOf(const std::string& line);

}  // namespace ranktest::internal
