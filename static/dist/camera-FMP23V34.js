import{a}from"./chunk-Z5LYSTPF.js";import"./chunk-XOJ3ISBQ.js";export{a as mountCamera};
