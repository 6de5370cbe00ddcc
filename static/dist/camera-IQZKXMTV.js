import{a,b}from"./chunk-LQBVOIL6.js";import"./chunk-3HM427NY.js";import"./chunk-LYJR45XX.js";import"./chunk-GKNFYBUA.js";export{b as frameTimeWords,a as mountCamera};
