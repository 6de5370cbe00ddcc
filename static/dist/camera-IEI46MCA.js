import{a,b}from"./chunk-BBJDZHX6.js";import"./chunk-SJIALYPM.js";import"./chunk-ZHB5QF64.js";export{b as frameTimeWords,a as mountCamera};
