import{a}from"./chunk-ZHAUH3CK.js";import"./chunk-XR5EWTAA.js";export{a as mountCamera};
