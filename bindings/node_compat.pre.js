// Emscripten 3.1.6 emits an ES module whose Node branch still uses the CommonJS globals
// `__dirname` and `require`, which do not exist in ES modules ("__dirname is not defined").
// Define both inside the module factory, where this file is pasted. `__dirname` only feeds
// locateFile(), which is unused: web/attnscope.js always passes the binary as `wasmBinary` in
// Node, so Node never tries to fetch() or read a file path itself.
var __dirname = '.';
var require = typeof process == 'object' && typeof process.getBuiltinModule == 'function'
    ? process.getBuiltinModule
    : function (name) { throw new Error('attnscope: cannot load "' + name + '" here; pass wasmBinary'); };
