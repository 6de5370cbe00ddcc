import{e as a,f as b,g as c,h as d}from"./chunk-BHORI3IH.js";import"./chunk-5MA45F64.js";export{c as fitToElement,a as loadFleetMap,d as mountPoseMap,b as poseOfPayload};
