import{a,b}from"./chunk-HCAX5JFI.js";import"./chunk-ZLA4TPZB.js";import"./chunk-ZHB5QF64.js";export{b as frameTimeWords,a as mountCamera};
