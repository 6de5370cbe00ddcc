import{a}from"./chunk-OISSS5HM.js";import"./chunk-XOJ3ISBQ.js";export{a as mountCamera};
