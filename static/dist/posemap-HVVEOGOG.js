import{e as a,f as b,g as c,h as d}from"./chunk-4FNUH27Q.js";import"./chunk-DO4XQ363.js";import"./chunk-ZHB5QF64.js";export{c as fitToElement,a as loadFleetMap,d as mountPoseMap,b as poseOfPayload};
