import{a}from"./chunk-MGJRJ7QT.js";import"./chunk-77SKF6SU.js";export{a as mountCamera};
