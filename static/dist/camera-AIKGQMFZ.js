import{a,b}from"./chunk-X6HBG6SF.js";import"./chunk-3HM427NY.js";import"./chunk-UP37ZJCL.js";import"./chunk-GKNFYBUA.js";export{b as frameTimeWords,a as mountCamera};
