import{a}from"./chunk-7NFNFEK4.js";import"./chunk-DPJCG2C5.js";export{a as mountCamera};
