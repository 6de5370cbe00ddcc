import{a}from"./chunk-YKS6NRLE.js";import"./chunk-GYB4VUS2.js";export{a as mountCamera};
