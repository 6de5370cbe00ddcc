import{a}from"./chunk-FCY24SAI.js";import"./chunk-5MA45F64.js";export{a as mountCamera};
