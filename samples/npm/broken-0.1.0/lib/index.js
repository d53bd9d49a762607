/** Still extracted: the syntax error is further down. */
function ok(a, b = 2) {}
exports.ok = ok;
exports.alsoOk = require("./other");
