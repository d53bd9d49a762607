module.exports = function other(x) {
  return x +* ;
};
