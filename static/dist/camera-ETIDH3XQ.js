import{a}from"./chunk-BJZMY2RS.js";import"./chunk-JZOOHZJG.js";export{a as mountCamera};
