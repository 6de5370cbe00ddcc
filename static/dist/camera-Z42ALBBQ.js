import{a}from"./chunk-NHFMCMTS.js";import"./chunk-DPJCG2C5.js";export{a as mountCamera};
