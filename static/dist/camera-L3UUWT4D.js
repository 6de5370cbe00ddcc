import{a}from"./chunk-CLQMNMXL.js";import"./chunk-7GOWI76T.js";export{a as mountCamera};
