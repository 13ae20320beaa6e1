#pragma once
// Ctrl-C and SIGTERM for the long-running verbs (consume, perf): the first
// signal asks the loop to stop so it can print its totals and close cleanly; a
// second one ends the process at once, as a user pressing Ctrl-C twice expects.
namespace samsa::tools {

// Installs the handlers (idempotent).
void install_stop_handlers();
bool stop_requested();

}  // namespace samsa::tools
