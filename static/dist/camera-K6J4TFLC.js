import{a,b,c}from"./chunk-2EJHQVCG.js";import"./chunk-DO4XQ363.js";import"./chunk-ZHB5QF64.js";export{c as frameTimeWords,a as mountCamera,b as offersH264};
