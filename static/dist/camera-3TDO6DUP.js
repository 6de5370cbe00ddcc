import{a}from"./chunk-WMPDQJMI.js";import"./chunk-7GOWI76T.js";export{a as mountCamera};
