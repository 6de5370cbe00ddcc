import{a,b}from"./chunk-LJPSC3QZ.js";import"./chunk-SJIALYPM.js";import"./chunk-ZHB5QF64.js";export{b as frameTimeWords,a as mountCamera};
