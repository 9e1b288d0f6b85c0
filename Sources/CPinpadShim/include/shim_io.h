// What Swift cannot import for the event loop, sockets and terminals.
// Each area of the C shim has its own header; this folder is the module's umbrella.
#pragma once
