import{a}from"./chunk-Z556NDU2.js";import"./chunk-77SKF6SU.js";export{a as mountCamera};
